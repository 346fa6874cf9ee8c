package main

import (
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/config"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// newScorer builds the scoring core with the default judge eval.JudgeFromEnv selects and the named
// judges of the config file, which metric policies choose by name. judge, when set, overrides the
// provider variable ("none" turns the default judge off); the URL, model and key still come from
// the environment, so the key never appears on a command line.
func newScorer(judge string, named []config.Judge, log *slog.Logger) (tools.Scorer, error) {
	getenv := os.Getenv
	if judge != "" {
		getenv = func(k string) string {
			if k == eval.EnvJudgeProvider {
				if judge == "none" {
					return ""
				}
				return judge
			}
			return os.Getenv(k)
		}
	}
	j, err := eval.JudgeFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	model := "none"
	if j != nil {
		model = j.Model()
	}
	log.Info("judge selected", slog.String("judge", model))
	judges, err := namedJudges(named, os.Getenv)
	if err != nil {
		return nil, err
	}
	return broker.EvalScorer{Evaluator: &eval.Evaluator{Judge: j, Judges: judges, Cache: eval.NewMemoryCache(1024), Logger: log}}, nil
}

// loadScorer loads the config file when one is named and builds the scorer with its named judges,
// so every command that scores — serve, rederive, manifest — knows the judges the tenants'
// policies name. A stored policy that names a judge is otherwise refused (eval.ErrUnknownJudge)
// before any metric runs.
func loadScorer(configFile, judge string, log *slog.Logger) (*config.Config, tools.Scorer, error) {
	var cfg *config.Config
	var named []config.Judge
	if configFile != "" {
		c, err := config.Load(configFile)
		if err != nil {
			return nil, nil, err
		}
		cfg, named = c, c.Judges
	}
	scorer, err := newScorer(judge, named, log)
	if err != nil {
		return nil, nil, err
	}
	return cfg, scorer, nil
}

// namedJudges builds the config file's judges, each with the key from the variable it names.
func namedJudges(named []config.Judge, getenv func(string) string) (map[string]eval.Judge, error) {
	if len(named) == 0 {
		return nil, nil
	}
	out := make(map[string]eval.Judge, len(named))
	for _, c := range named {
		key := ""
		if c.APIKeyEnv != "" {
			if key = getenv(c.APIKeyEnv); key == "" {
				return nil, fmt.Errorf("configuring judge %q: %s is empty: set it to the API key (it is never read from the config file)", c.Name, c.APIKeyEnv)
			}
		}
		j, err := eval.NewHTTPJudge(c.Provider, c.URL, c.Model, key, &http.Client{Timeout: judgeClientTimeout})
		if err != nil {
			return nil, fmt.Errorf("configuring judge %q: %w", c.Name, err)
		}
		out[c.Name] = j
	}
	return out, nil
}

// judgeClientTimeout backstops the per-metric deadline the Evaluator sets on every judge call.
const judgeClientTimeout = 30 * time.Second

// judgeModel names the scorer's judge for pinning in stored evaluations ("none" without one).
func judgeModel(s tools.Scorer) string {
	if es, ok := s.(broker.EvalScorer); ok && es.Evaluator != nil && es.Evaluator.Judge != nil {
		return es.Evaluator.Judge.Model()
	}
	return "none"
}
