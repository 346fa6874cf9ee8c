package wire

import (
	"bufio"
	"context"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// rawServer accepts one connection, hands the request head it read to got, and answers reply.
func rawServer(t *testing.T, reply string) (url string, got chan string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got = make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		r := bufio.NewReader(c)
		var head strings.Builder
		for {
			line, err := r.ReadString('\n')
			head.WriteString(line)
			if err != nil || line == "\r\n" {
				break
			}
		}
		got <- head.String()
		io.WriteString(c, reply)
	}()
	return "http://" + l.Addr().String() + "/mcp", got
}

func TestDoRawSendsHeaderValuesVerbatim(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`
	url, got := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body)
	spec := NewCall("prompts/get", map[string]any{"name": "foo"}, WithID(1), WithHeader(HeaderName, "  foo \t"), WithHeader("Authorization", "Bearer s3cret"))
	spec.URL = url
	ex := DoRaw(context.Background(), spec, Limits{ReadTimeout: 5 * time.Second}, "s3cret")
	head := <-got
	if !strings.Contains(head, "Mcp-Name:  foo \t\r\n") {
		t.Errorf("the header value was not sent verbatim:\n%q", head)
	}
	if ex.Status() != 200 || ex.Reply() == nil || ex.Reply().ResultType() != "complete" {
		t.Errorf("exchange %s", ex.Summary())
	}
	if strings.Contains(ex.Request.Header.Get("Authorization"), "s3cret") {
		t.Error("the record keeps the secret")
	}
}

func TestDoRawAlwaysReturnsAnExchange(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	for _, u := range []string{"http://" + addr + "/", "ftp://x/"} {
		spec := NewCall("server/discover", nil)
		spec.URL = u
		if ex := DoRaw(context.Background(), spec, Limits{ReadTimeout: time.Second}); ex == nil || ex.Err == "" || ex.Response != nil {
			t.Errorf("%s: want a recorded error, got %+v", u, ex)
		}
	}
}
