package main

import (
	"errors"
	"fmt"
	"strings"
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
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("--command %q: a single quote is not closed", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
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
		case c == '\\':
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
