package eval

import (
	"fmt"
	"net/http"
	"time"
)

// Environment variables JudgeFromEnv reads. The caller (a cmd/ package) supplies getenv.
const (
	EnvJudgeProvider = "SENTINEL_JUDGE_PROVIDER" // "openai", "anthropic", or empty for no judge
	EnvJudgeURL      = "SENTINEL_JUDGE_URL"      // full endpoint URL
	EnvJudgeModel    = "SENTINEL_JUDGE_MODEL"
	EnvJudgeAPIKey   = "SENTINEL_JUDGE_API_KEY" // never logged; see Secret
)

// judgeClientTimeout backstops the per-metric context deadline for a client that is reused
// outside the Evaluator.
const judgeClientTimeout = 30 * time.Second

// JudgeFromEnv builds the configured judge. An empty provider means no judge (nil, nil): the
// deterministic tier then decides clear cases and ambiguous ones are warn. Any other incomplete
// configuration is an error naming the variable to set; the key's value never appears in it.
func JudgeFromEnv(getenv func(string) string) (Judge, error) {
	provider := getenv(EnvJudgeProvider)
	if provider == "" {
		return nil, nil
	}
	if provider != ProviderOpenAI && provider != ProviderAnthropic {
		return nil, fmt.Errorf("configuring judge: %s=%q is not known: set it to %q or %q, or unset it for no judge",
			EnvJudgeProvider, provider, ProviderOpenAI, ProviderAnthropic)
	}
	url, model, key := getenv(EnvJudgeURL), getenv(EnvJudgeModel), getenv(EnvJudgeAPIKey)
	for _, req := range []struct{ name, value string }{{EnvJudgeURL, url}, {EnvJudgeModel, model}, {EnvJudgeAPIKey, key}} {
		if req.value == "" {
			return nil, fmt.Errorf("configuring %s judge: %s is empty: set it", provider, req.name)
		}
	}
	client := &http.Client{Timeout: judgeClientTimeout}
	if provider == ProviderAnthropic {
		return NewAnthropicJudge(url, model, key, client), nil
	}
	return NewOpenAIJudge(url, model, key, client), nil
}
