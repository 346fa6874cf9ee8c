package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mcp-sentinel/sentinel/stdio"
)

// splitCommand splits a --command value into words the way a POSIX shell splits a simple command
// line, without running a shell: blanks separate words, single quotes keep everything literally,
// double quotes keep blanks (a backslash in them escapes only $ ` " \ and a newline), and a
// backslash outside quotes escapes the next character. Expansions ($VAR, globs, ~), pipes and
// redirections are not interpreted; a command that needs them is run as
// --command 'sh -c "..."'. An unterminated quote or a trailing backslash is an error.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("--command %q: a single quote is not closed", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("--command %q: a double quote is not closed", s)
			}
			inWord = true
		case '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("--command %q: it ends in a backslash", s)
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, errors.New("--command is empty: give the server's command line, e.g. --command 'node server.js'")
	}
	return words, nil
}

// serverCommand is how `probe` and `deprecations` are told to launch a stdio server instead of
// reaching an endpoint: --command 'node server.js', or the words after --, with --env and --cwd.
type serverCommand struct {
	command string
	env     []string
	cwd     string
}

// addCommandFlags registers --command, --env and --cwd on cmd and lets it take the server's
// command after --. One argument before -- is taken as the endpoint when it is an http(s) URL,
// because `sentinel probe https://host/mcp` is what people type first; it sets --endpoint, so a
// sentinel.yaml endpoint does not override it and giving both is refused.
func addCommandFlags(cmd *cobra.Command, c *serverCommand) {
	f := cmd.Flags()
	f.StringVar(&c.command, "command", "", "launch this stdio server and scan it over stdio instead of --endpoint (or give it after --)")
	f.StringArrayVar(&c.env, "env", nil, "KEY=VALUE added to the stdio server's environment (repeatable)")
	f.StringVar(&c.cwd, "cwd", "", "the stdio server's working directory (default: the current one)")
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		before := args
		if dash := cmd.ArgsLenAtDash(); dash >= 0 {
			before = args[:dash]
		}
		switch {
		case len(before) == 0:
			return nil
		case len(before) == 1 && isEndpointURL(before[0]):
			if cmd.Flags().Changed("endpoint") {
				return fmt.Errorf("the endpoint is given twice: %q and --endpoint; give it once", before[0])
			}
			return cmd.Flags().Set("endpoint", before[0])
		default:
			return fmt.Errorf("unexpected argument %q: give the endpoint as an http(s) URL (or --endpoint), and a stdio server's command after -- (or --command)", before[0])
		}
	}
}

// isEndpointURL reports whether arg reads as an endpoint rather than a stray word: it starts
// with http:// or https://, in any letter case.
func isEndpointURL(arg string) bool {
	l := strings.ToLower(arg)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// commandArgs returns the words after -- in args: the stdio server's command line, without an
// endpoint given before --.
func commandArgs(cmd *cobra.Command, args []string) []string {
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		return args[dash:]
	}
	return nil
}

// resolve returns the stdio server to launch, nil when none was given (an endpoint scan). args
// are the words after --. It refuses a command given twice, or given with an endpoint.
func (c serverCommand) resolve(args []string, endpoint string) (*stdio.Options, error) {
	var words []string
	switch {
	case c.command != "" && len(args) > 0:
		return nil, errors.New("give the stdio server once: --command or the words after --, not both")
	case c.command != "":
		w, err := splitCommand(c.command)
		if err != nil {
			return nil, err
		}
		words = w
	case len(args) > 0:
		words = args
	}
	if words == nil {
		if len(c.env) > 0 || c.cwd != "" {
			return nil, errors.New("--env and --cwd apply to a stdio server: give its command with --command or after --")
		}
		return nil, nil
	}
	if endpoint != "" {
		return nil, errors.New("scan either an endpoint (--endpoint) or a stdio server (--command, or after --), not both")
	}
	for _, kv := range c.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("--env %q: give KEY=VALUE", kv)
		}
	}
	return &stdio.Options{Path: words[0], Args: words[1:], Env: c.env, Dir: c.cwd}, nil
}
