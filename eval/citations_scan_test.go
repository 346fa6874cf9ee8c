package eval

import (
	"reflect"
	"strings"
	"testing"
)

// checkCitationScanners compares each scanner of citations_scan.go with its expression on text.
func checkCitationScanners(t *testing.T, text string) {
	t.Helper()
	for _, n := range []int{MaxCitations, 1, -1} {
		if got, want := findReferences(text, n), referenceRe().FindAllStringSubmatchIndex(text, n); !reflect.DeepEqual(got, want) {
			t.Errorf("findReferences(%q, %d) = %v, the expression finds %v", text, n, got, want)
		}
		if got, want := findNumbers(text, n), numberRe().FindAllStringIndex(text, n); !reflect.DeepEqual(got, want) {
			t.Errorf("findNumbers(%q, %d) = %v, the expression finds %v", text, n, got, want)
		}
	}
	for _, n := range []int{MaxCitations, 1, -1} {
		if got, want := findQuotes(text, n), quoteRe().FindAllStringSubmatchIndex(text, n); !reflect.DeepEqual(got, want) {
			t.Errorf("findQuotes(%q, %d) = %v, the expression finds %v", text, n, got, want)
		}
		if got, want := findSources(text, n), sourceRe().FindAllStringSubmatchIndex(text, n); !reflect.DeepEqual(got, want) {
			t.Errorf("findSources(%q, %d) = %v, the expression finds %v", text, n, got, want)
		}
	}
	if got, want := findSentenceEnds(text), sentenceEnd().FindAllStringIndex(text, -1); !reflect.DeepEqual(got, want) {
		t.Errorf("findSentenceEnds(%q) = %v, the expression finds %v", text, got, want)
	}
}

// TestCitationScannersMatchExpressions holds the scanners to their expressions on every
// response and context item of the training corpus and on texts built to reach their branches.
func TestCitationScannersMatchExpressions(t *testing.T) {
	n := 0
	for _, it := range trainingGroundedness(t) {
		checkCitationScanners(t, it.Response)
		for _, c := range it.Context {
			checkCitationScanners(t, c.Content)
		}
		n++
	}
	if n < 100 {
		t.Fatalf("only %d items", n)
	}
	for _, text := range []string{
		"", "§", "§3", "§ 3.1", "x§3.1a", "Section 3.1", "SECTION 3.1a.", "sec.4", "Sec. 4b", "xsection 4", "_section 4",
		"section 3.1.2x", "section 3.1.2xy", "section 3.12_", "section 3_", "section 3ab", "section a", "section ab",
		"section a.1", "section a.1b", "section a.1.2_", "sections 3", "section\t\n\f\r 3", "Table3", "table 3é",
		"fig. 2, Fig 3; FIG.4", "para. 2 paragraph 3 page 4 rule 5 step 6 item 7 rfc 9110 RFC9110", "annex a appendix b",
		"art. 7 article 8 clause 9 chapter 10", "ſection 3", "table \u212a", "section 3.", "section 3.x", "section 3.1.",
		"Table", "table ", "section 3 section 4 section 5", strings.Repeat("see section 3.1 ", 300),
		"$1,200", "€ 1,200.50%", "£3", "$ 12", "a12", "12a", "1,2345", "1,234,567.89%", " 14 days", "\t14", "1.2.3",
		"x$5", "é5", "5é", "１２", "$\u00a012", "1 200", "%5", ",5", ".5", "5.", "5,", "—12—", strings.Repeat("1, ", 300),
		"Done. Next!\nWhy? Yes.", `"short"`, `"exactly8"`, `"1234567"`, `"quote with "inner" marks"`, "“curly ”quote”",
		"“curly \"inner\" text”", "\"across\nlines ok\"", `"` + strings.Repeat("x", 300) + `"`, `"` + strings.Repeat("x", 301) + `"`,
		"“" + strings.Repeat("é", 300) + "”", "“" + strings.Repeat("é", 301) + "”", "\"bad \xff bytes here\"", `""""""""""""`,
		"[1] [12] [123] [1234] [ 7 ] [a] [kb-1] [doc.3:x] [a1234567890123456789012345678901234567890] [a12345678901234567890123456789012345678901]",
		"【1】 【 kb-2 】 [x】 【y] [1](link) [ab cd] [-a] [_a] [a_b] [ \t\n1\r ]", "[[1]]", "[", "【", "[1", "a.b", "end.", "end!", "end?\n", "...", ".\n.", "\n\n",
	} {
		checkCitationScanners(t, text)
	}
}

// FuzzCitationScanners holds the scanners to their expressions on arbitrary texts.
func FuzzCitationScanners(f *testing.F) {
	f.Add("See section 3.1b [kb-1]. The fee is $1,200.50 (12%).")
	f.Add("§ 4.2.1x, Fig.3; ART. 7 and rfc9110!\n")
	f.Add("€ 5 1,2345 ſection 2 \u212a")
	f.Add("“a quoted “text”” \"and another one\" [kb-1] 【2】 [ 123 ]")
	f.Fuzz(func(t *testing.T, text string) {
		checkCitationScanners(t, text)
	})
}

// foldSpacesReference is foldSpaces as it was written before its single pass.
func foldSpacesReference(s string) string {
	s = strings.NewReplacer("’", "'", "‘", "'", "“", `"`, "”", `"`).Replace(s)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// TestFoldSpacesMatchesReference holds foldSpaces to the replacer, fields, join and lower-case
// it replaces, on the training corpus and on edge texts.
func TestFoldSpacesMatchesReference(t *testing.T) {
	texts := []string{"", " ", "  A  b\t\nC ", "\u00a0x\u0085y\u2009", "“Quoted” ‘it’s’ ’", "ÀÉÎ Straße İ",
		"bad \xff byte", "\xe2\x80", "\xe2\xe2\x80\x99", "ASCII ONLY", "x\v\fy\r", "\uFFFD", "ǅ ǈ Σ"}
	for _, it := range trainingGroundedness(t) {
		texts = append(texts, it.Response)
		for _, c := range it.Context {
			texts = append(texts, c.Content)
		}
	}
	for _, s := range texts {
		if got, want := foldSpaces(s), foldSpacesReference(s); got != want {
			t.Errorf("foldSpaces(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzFoldSpaces holds foldSpaces to its reference on arbitrary texts.
func FuzzFoldSpaces(f *testing.F) {
	f.Add("  “A”\t’b’ \xff\u00a0C ")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := foldSpaces(s), foldSpacesReference(s); got != want {
			t.Errorf("foldSpaces(%q) = %q, want %q", s, got, want)
		}
	})
}
