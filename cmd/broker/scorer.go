package main

import (
	"log/slog"
	"os"

	"github.com/mcp-sentinel/sentinel/broker"
	"github.com/mcp-sentinel/sentinel/broker/tools"
	"github.com/mcp-sentinel/sentinel/eval"
)

// newScorer builds the scoring core with the judge eval.JudgeFromEnv selects. judge, when set,
// overrides the provider variable ("none" turns the judge off); the URL, model and key still come
// from the environment, so the key never appears on a command line.
func newScorer(judge string, log *slog.Logger) (tools.Scorer, error) {
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
	return broker.EvalScorer{Evaluator: &eval.Evaluator{Judge: j, Cache: eval.NewMemoryCache(1024), Logger: log}}, nil
}

// judgeModel names the scorer's judge for pinning in stored evaluations ("none" without one).
func judgeModel(s tools.Scorer) string {
	if es, ok := s.(broker.EvalScorer); ok && es.Evaluator != nil && es.Evaluator.Judge != nil {
		return es.Evaluator.Judge.Model()
	}
	return "none"
}
