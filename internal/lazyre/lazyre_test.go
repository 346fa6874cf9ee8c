package lazyre

import "testing"

// TestNewCompilesOnceOnFirstUse: the same expression is handed back on every call, and an invalid
// one panics when first used, not when declared.
func TestNewCompilesOnceOnFirstUse(t *testing.T) {
	re := New(`^a+$`)
	first, again := re(), re()
	if first != again {
		t.Fatal("New compiled its expression more than once")
	}
	if !re().MatchString("aaa") || re().MatchString("ab") {
		t.Fatal("the compiled expression does not mean what it says")
	}
	bad := New(`(`) // declaring an invalid expression must not panic
	defer func() {
		if recover() == nil {
			t.Fatal("an invalid expression did not panic on first use")
		}
	}()
	bad()
}
