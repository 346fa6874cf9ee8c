package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// scanPath are the directories (with their subdirectories) whose code runs while a scan or a
// proxied exchange is graded: a fixed sleep there is time every scan pays whatever the server
// does.
var scanPath = []string{"active", "wire", "passive", "stdio", "rules", "findings", "report", "cmd/sentinel", "cmd/sentinel-proxy", "cmd/internal/sentinelcmd", "internal/sqlitebusy"}

// periodic are the functions on those paths allowed a timer-only wait, each with why: a job that
// runs on a clock in the background, which nothing waits for. Keyed by file (slash-separated,
// from the module root) and function.
var periodic = map[string]string{
	"cmd/sentinel-proxy/proxy.go:prune":       "the proxy's retention job runs every few minutes in the background until the proxy stops; no exchange waits for it",
	"internal/sqlitebusy/sqlitebusy.go:Retry": "a SQLite file another process is opening holds a lock with no event to wait on; the back-off is bounded by sqlitebusy.Wait and the caller's context, and runs only on SQLITE_BUSY at Open",
}

// TestScanPathHasNoFixedSleeps holds issue 17's rule that every wait on the scan path ends on the
// event it waits for or on its deadline: no time.Sleep, no bare <-time.After, and no select
// whose every case is a timer or a context's Done (a sleep that a cancellation can cut short is
// still a sleep). A wait for an event with a timer as its bound is what the rule asks for.
func TestScanPathHasNoFixedSleeps(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	for _, dir := range scanPath {
		root := filepath.Join("..", "..", filepath.FromSlash(dir))
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if d.Name() == "testdata" {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			files++
			rel := filepath.ToSlash(strings.TrimPrefix(path, filepath.Join("..", "..")+string(filepath.Separator)))
			for _, p := range fixedSleeps(f) {
				if _, ok := periodic[rel+":"+p.fn]; ok {
					continue
				}
				t.Errorf("%s (in %s): %s: a fixed wait on the scan path; wait for the event, bounded by a deadline", fset.Position(p.pos), p.fn, p.what)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("reading %s: %v", dir, err)
		}
	}
	if files < 50 {
		t.Fatalf("read only %d source files under %v: the walk is not looking where the code is", files, scanPath)
	}
}

// TestFixedSleepsFindsThem holds the detector to the forms it must catch and the waits it must
// let through.
func TestFixedSleepsFindsThem(t *testing.T) {
	cases := []struct {
		name, body string
		want       int
	}{
		{"sleep", `time.Sleep(time.Second)`, 1},
		{"bare after", `<-time.After(time.Second)`, 1},
		{"select on a timer and a deadline", `select { case <-ctx.Done(): case <-time.After(d): }`, 1},
		{"select on a timer's C", `tm := time.NewTimer(d); select { case <-tm.C: case <-ctx.Done(): }`, 1},
		{"an event bounded by a timer", `select { case <-acked: case <-time.After(d): case <-ctx.Done(): }`, 0},
		{"an event bounded by a deadline", `select { case m := <-msgs: _ = m; case <-ctx.Done(): }`, 0},
		{"a send", `select { case out <- v: case <-ctx.Done(): }`, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := "package p\nimport \"time\"\nfunc f() {\n" + tc.body + "\n}\n"
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(fixedSleeps(f)); got != tc.want {
				t.Errorf("%d fixed waits found in %q, want %d", got, tc.body, tc.want)
			}
		})
	}
}

type sleepAt struct {
	pos      token.Pos
	fn, what string
}

// fixedSleeps lists the fixed waits in f, with the top-level function each is in.
func fixedSleeps(f *ast.File) []sleepAt {
	var out []sleepAt
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
			for _, s := range fixedSleepsIn(fd.Body) {
				s.fn = fd.Name.Name
				out = append(out, s)
			}
		}
	}
	return out
}

func fixedSleepsIn(body ast.Node) []sleepAt {
	var out []sleepAt
	// A select case's receive is judged with its select, not as a statement of its own.
	comm := map[ast.Stmt]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		if cc, ok := n.(*ast.CommClause); ok && cc.Comm != nil {
			comm[cc.Comm] = true
		}
		return true
	})
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if isCall(n, "time", "Sleep") {
				out = append(out, sleepAt{pos: n.Pos(), what: "time.Sleep"})
			}
		case *ast.ExprStmt:
			if u, ok := n.X.(*ast.UnaryExpr); ok && !comm[n] && u.Op == token.ARROW && isTimerChan(u.X) {
				out = append(out, sleepAt{pos: n.Pos(), what: "a bare receive from a timer"})
			}
		case *ast.SelectStmt:
			timerOnly, timers := true, 0
			for _, c := range n.Body.List {
				cc := c.(*ast.CommClause)
				ch := receivedFrom(cc.Comm)
				switch {
				case cc.Comm == nil: // default: the select does not wait at all
					timerOnly = false
				case ch != nil && isTimerChan(ch):
					timers++
				case ch != nil && isDone(ch):
				default:
					timerOnly = false
				}
			}
			if timerOnly && timers > 0 {
				out = append(out, sleepAt{pos: n.Pos(), what: "a select on nothing but a timer and a deadline"})
			}
		}
		return true
	})
	return out
}

// receivedFrom is the channel a select case receives from, or nil for a send.
func receivedFrom(s ast.Stmt) ast.Expr {
	var e ast.Expr
	switch s := s.(type) {
	case *ast.ExprStmt:
		e = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			e = s.Rhs[0]
		}
	}
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// isTimerChan reports whether e is time.After(…), time.Tick(…) or a timer's or ticker's C.
func isTimerChan(e ast.Expr) bool {
	if c, ok := e.(*ast.CallExpr); ok {
		return isCall(c, "time", "After") || isCall(c, "time", "Tick")
	}
	if s, ok := e.(*ast.SelectorExpr); ok {
		return s.Sel.Name == "C"
	}
	return false
}

// isDone reports whether e is a call of a method named Done (a context's, or a deadline's).
func isDone(e ast.Expr) bool {
	c, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	s, ok := c.Fun.(*ast.SelectorExpr)
	return ok && s.Sel.Name == "Done" && len(c.Args) == 0
}

func isCall(c *ast.CallExpr, pkg, name string) bool {
	s, ok := c.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	id, ok := s.X.(*ast.Ident)
	return ok && id.Name == pkg && s.Sel.Name == name
}
