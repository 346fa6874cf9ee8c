package wire

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll frames every line of s with cap max.
func readAll(t *testing.T, r io.Reader, max int64) []Line {
	t.Helper()
	lr := NewLineReader(r, max)
	var out []Line
	for i := 0; i < 10000; i++ {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		out = append(out, l)
	}
	t.Fatal("more than 10000 lines")
	return nil
}

func TestLineReaderFrames(t *testing.T) {
	tests := []struct {
		name string
		in   string
		max  int64
		want []Line
	}{
		{"one message per line", "{\"a\":1}\n{\"b\":2}\n", 0, []Line{
			{Bytes: []byte(`{"a":1}`), Size: 7}, {Bytes: []byte(`{"b":2}`), Size: 7}}},
		{"a final line without newline is unterminated", "x\ny", 0, []Line{
			{Bytes: []byte("x"), Size: 1}, {Bytes: []byte("y"), Size: 1, Unterminated: true}}},
		{"a blank line is a line", "\n\n", 0, []Line{{Size: 0}, {Size: 0}}},
		{"CRLF keeps the carriage return for the decoder", "{}\r\n", 0, []Line{{Bytes: []byte("{}\r"), Size: 3}}},
		{"a line at the cap is whole", "abcd\n", 4, []Line{{Bytes: []byte("abcd"), Size: 4}}},
		{"a line over the cap keeps a prefix and its size", "abcdef\nok\n", 4, []Line{
			{Bytes: []byte("abcd"), Size: 6, TooLong: true}, {Bytes: []byte("ok"), Size: 2}}},
		{"nothing at all is no line", "", 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := readAll(t, strings.NewReader(tt.in), tt.max)
			if len(got) != len(tt.want) {
				t.Fatalf("lines = %+v, want %+v", got, tt.want)
			}
			for i := range got {
				g, w := got[i], tt.want[i]
				if !bytes.Equal(g.Bytes, w.Bytes) || g.Size != w.Size || g.TooLong != w.TooLong || g.Unterminated != w.Unterminated {
					t.Errorf("line %d = %+v (%q), want %+v (%q)", i, g, g.Bytes, w, w.Bytes)
				}
			}
		})
	}
}

// TestLineReaderOneByteReads proves framing does not depend on how the peer's writes are split.
func TestLineReaderOneByteReads(t *testing.T) {
	in := "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n" + strings.Repeat("z", 300) + "\nend\n"
	got := readAll(t, iotest.OneByteReader(strings.NewReader(in)), 100)
	if len(got) != 3 || string(got[0].Bytes) != `{"jsonrpc":"2.0","id":1,"result":{}}` || !got[1].TooLong || got[1].Size != 300 || string(got[2].Bytes) != "end" {
		t.Fatalf("lines = %+v", got)
	}
}

// longLine yields n bytes of 'x' and then a newline, without holding them.
type longLine struct{ n int64 }

func (e *longLine) Read(p []byte) (int, error) {
	if e.n < 0 {
		return 0, io.EOF
	}
	if e.n == 0 {
		p[0] = '\n'
		e.n = -1
		return 1, nil
	}
	k := int64(len(p))
	if k > e.n {
		k = e.n
	}
	for i := range p[:k] {
		p[i] = 'x'
	}
	e.n -= k
	return int(k), nil
}

// TestLineReaderHugeLineBoundedMemory reads a 100 MB line with a 1 MiB cap: the line is refused
// (TooLong, its full size counted) and the reader allocates a small multiple of the cap, not the
// line.
func TestLineReaderHugeLineBoundedMemory(t *testing.T) {
	const size = 100 << 20
	const max = 1 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	lr := NewLineReader(io.MultiReader(&longLine{n: size}, strings.NewReader("{}\n")), max)
	l, err := lr.Next()
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	if !l.TooLong || l.Size != size || len(l.Bytes) != max {
		t.Fatalf("line: TooLong=%v Size=%d len=%d, want true %d %d", l.TooLong, l.Size, len(l.Bytes), size, max)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8*max {
		t.Errorf("reading one 100 MB line allocated %d bytes, want at most %d", alloc, 8*max)
	}
	next, err := lr.Next()
	if err != nil || string(next.Bytes) != "{}" {
		t.Fatalf("the line after the huge one = %q, %v; want {}", next.Bytes, err)
	}
}

func TestLineReaderReportsReadErrors(t *testing.T) {
	boom := errors.New("boom")
	lr := NewLineReader(io.MultiReader(strings.NewReader("part"), iotest.ErrReader(boom)), 0)
	l, err := lr.Next()
	if !errors.Is(err, boom) || string(l.Bytes) != "part" {
		t.Fatalf("Next = %q, %v; want the partial line and the wrapped error", l.Bytes, err)
	}
}

func TestEncodeLine(t *testing.T) {
	got, err := EncodeLine([]byte(`{"a":"b\nc"}`))
	if err != nil || string(got) != "{\"a\":\"b\\nc\"}\n" {
		t.Fatalf("EncodeLine of an escaped newline = %q, %v", got, err)
	}
	for _, bad := range []string{"{\n}", "{\r}", "{}\n"} {
		if _, err := EncodeLine([]byte(bad)); !errors.Is(err, ErrEmbeddedNewline) {
			t.Errorf("EncodeLine(%q) error = %v, want ErrEmbeddedNewline", bad, err)
		}
	}
}

func TestDecodeFrame(t *testing.T) {
	tests := []struct {
		name string
		line string
		want LineProblem
		kind string // "request", "notification", "response" when want is ProblemNone
	}{
		{"request", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, ProblemNone, "request"},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}`, ProblemNone, "notification"},
		{"response", `{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete"}}`, ProblemNone, "response"},
		{"error response", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`, ProblemNone, "response"},
		{"CRLF line ending", "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\r", ProblemNone, "notification"},
		{"empty", "", ProblemEmpty, ""},
		{"whitespace only", "  \t", ProblemEmpty, ""},
		{"log line on stdout", "Starting server on stdio...", ProblemNotJSON, ""},
		{"opening brace of pretty JSON", "{", ProblemSplit, ""},
		{"member line of pretty JSON", `  "jsonrpc": "2.0",`, ProblemSplit, ""},
		{"closing brace of pretty JSON", "}", ProblemSplit, ""},
		{"object cut short", `{"jsonrpc":"2.0","id":1,"result":{`, ProblemSplit, ""},
		{"two objects on one line", `{"jsonrpc":"2.0","method":"a"} {"jsonrpc":"2.0","method":"b"}`, ProblemNotJSON, ""},
		{"batch", `[{"jsonrpc":"2.0","method":"a"}]`, ProblemBatch, ""},
		{"a number", `42`, ProblemNotObject, ""},
		{"no jsonrpc member", `{"id":1,"result":{}}`, ProblemNotJSONRPC, ""},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"result":{}}`, ProblemNotJSONRPC, ""},
		{"neither kind", `{"jsonrpc":"2.0","id":1}`, ProblemNotJSONRPC, ""},
		{"duplicate member", `{"jsonrpc":"2.0","id":1,"result":{},"result":{}}`, ProblemNotJSONRPC, ""},
		{"invalid UTF-8", "{\"jsonrpc\":\"2.0\",\"method\":\"\xff\"}", ProblemNotUTF8, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := DecodeFrame(Line{Bytes: []byte(tt.line), Size: int64(len(tt.line))})
			if f.Problem != tt.want {
				t.Fatalf("DecodeFrame(%q).Problem = %q (%s), want %q", tt.line, f.Problem, f.Detail, tt.want)
			}
			if tt.want != ProblemNone {
				if f.Message != nil || f.Detail == "" {
					t.Errorf("a problem frame has Message=%v Detail=%q; want nil and a reason", f.Message, f.Detail)
				}
				return
			}
			kind := map[bool]string{true: "request"}[f.Message.IsRequest()] +
				map[bool]string{true: "notification"}[f.Message.IsNotification()] +
				map[bool]string{true: "response"}[f.Message.IsResponse()]
			if kind != tt.kind {
				t.Errorf("kind = %q, want %q", kind, tt.kind)
			}
		})
	}
	long := DecodeFrame(Line{Bytes: []byte("{"), Size: 1 << 30, TooLong: true})
	if long.Problem != ProblemTooLong || !strings.Contains(long.Detail, "1073741824") {
		t.Errorf("too long line = %q %q", long.Problem, long.Detail)
	}
}

// FuzzStdioFraming frames arbitrary bytes and decodes every line: framing loses no byte (the
// lines and their newlines add up to the input), no line passes the cap, and a line decodes to a
// message exactly when it has no problem; a decoded message re-framed with EncodeLine is read back
// as the same bytes.
func FuzzStdioFraming(f *testing.F) {
	for _, s := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}\n",
		"{\n  \"jsonrpc\": \"2.0\"\n}\n",
		"banner\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\r\n[]\n",
		"\xff\xfe\n\n\n", strings.Repeat("a", 200),
	} {
		f.Add([]byte(s), int64(64))
	}
	f.Fuzz(func(t *testing.T, in []byte, max int64) {
		if max <= 0 || max > 1<<16 {
			max = 64
		}
		if max < 16 {
			max = 16
		}
		lr := NewLineReader(bytes.NewReader(in), max)
		var total int64
		for i := 0; ; i++ {
			if i > len(in)+1 {
				t.Fatal("more lines than bytes")
			}
			l, err := lr.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(l.Bytes)) > max || (int64(len(l.Bytes)) < l.Size) != l.TooLong {
				t.Fatalf("line of %d bytes (size %d, TooLong %v) with cap %d", len(l.Bytes), l.Size, l.TooLong, max)
			}
			total += l.Size
			if !l.Unterminated {
				total++
			}
			fr := DecodeFrame(l)
			if (fr.Message == nil) != (fr.Problem != ProblemNone) {
				t.Fatalf("frame %q: message %v with problem %q", l.Bytes, fr.Message, fr.Problem)
			}
			if trimmed := bytes.TrimRight(l.Bytes, "\r"); fr.Message != nil && !bytes.ContainsRune(trimmed, '\r') {
				enc, err := EncodeLine(trimmed)
				if err != nil {
					t.Fatalf("a decoded message cannot be re-framed: %v", err)
				}
				back, err := NewLineReader(bytes.NewReader(enc), max).Next()
				if err != nil || !bytes.Equal(back.Bytes, trimmed) {
					t.Fatalf("re-framed %q read back as %q, %v", l.Bytes, back.Bytes, err)
				}
			}
		}
		if total != int64(len(in)) {
			t.Fatalf("framing accounted for %d bytes of %d", total, len(in))
		}
	})
}

// FuzzLineFramerMatchesReader: pushing a stream through LineFramer in arbitrary chunks yields the
// very lines LineReader reads from it.
func FuzzLineFramerMatchesReader(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n\nxyz\r\nlast"), int64(4), uint8(3))
	f.Add([]byte(strings.Repeat("long line ", 40)+"\nshort\n"), int64(32), uint8(7))
	f.Fuzz(func(t *testing.T, in []byte, max int64, step uint8) {
		if max < 16 || max > 1<<16 {
			max = 16
		}
		n := int(step)%17 + 1
		want := readAll(t, bytes.NewReader(in), max)
		lf := NewLineFramer(max)
		var got []Line
		for i := 0; i < len(in); i += n {
			got = append(got, lf.Write(in[i:min(i+n, len(in))])...)
		}
		if l, ok := lf.Flush(); ok {
			got = append(got, l)
		}
		if len(got) != len(want) {
			t.Fatalf("framer gave %d lines, reader %d", len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			if !bytes.Equal(g.Bytes, w.Bytes) || g.Size != w.Size || g.TooLong != w.TooLong || g.Unterminated != w.Unterminated {
				t.Fatalf("line %d: framer %+v, reader %+v", i, g, w)
			}
		}
	})
}
