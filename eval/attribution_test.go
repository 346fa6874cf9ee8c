package eval

import (
	"strings"
	"testing"
)

// TestAttributionFramesAreNotClaims: a frame that names the claim's source is left out of the
// claims, in several languages and scripts, so a grounded response that names its source passes
// and one that misstates its source's content, or cites what does not exist, still fails.
func TestAttributionFramesAreNotClaims(t *testing.T) {
	shipping := []ContextItem{{ID: "shipping-notice", Content: "Container MSKU 448120-3 was loaded at Felixstowe on 27 November onto the Maersk Elba."},
		{ID: "invoice", Content: "Invoice 88-1092: 400 units of LED panel, total £9,600, terms 30 days."}}
	bonus := []ContextItem{{ID: "hr-pol-07", Content: "Bonus scheme. Contractors engaged through agencies are not eligible for the annual performance bonus."}}
	price := []ContextItem{{ID: "прайс", Content: "Замена масла — 2 500 руб., шиномонтаж комплекта — 3 200 руб."}}
	acta := []ContextItem{{ID: "acta-11", Content: "La junta de propietarios aprobó por unanimidad el presupuesto de 2026 y la reparación de la fachada."}}
	kiyaku := []ContextItem{{ID: "規約3", Content: "退会を希望する場合は、退会月の前月末日までに届け出てください。"},
		{ID: "規約2", Content: "月会費は毎月27日に口座から引き落とされます。"}}
	policy := []ContextItem{{ID: "policy", Content: "Section 9.1 Refunds: refunds are issued within 14 days of a return. There is no section 9.2; it was removed in the 2024 revision."}}
	tests := []struct {
		name       string
		response   string
		context    []ContextItem
		ungrounded bool
	}{
		{"en, frame and comma", "According to the shipping notice, the container was loaded at Felixstowe.", shipping, false},
		{"en, closing frame", "The container was loaded at Felixstowe, according to the shipping notice.", shipping, false},
		{"en, a frame around a denied claim", "According to [hr-pol-07], agency contractors are eligible for the annual performance bonus.", bonus, true},
		{"en, a changed figure behind a frame", "According to the shipping notice, the container was loaded at Felixstowe on 29 November.", shipping, true},
		{"en, a frame citing what does not exist", "According to section 9.2 [policy], partial refunds are allowed.", policy, true},
		{"ru, frame and marker", "Согласно [прайс], замена масла стоит 2 500 рублей.", price, false},
		{"ru, a changed price behind a frame", "Согласно [прайс], замена масла стоит 3 500 рублей.", price, true},
		{"es, frame naming the source", "Según el acta [acta-11], la junta aprobó el presupuesto por unanimidad.", acta, false},
		{"ja, frame after its source", "[規約3]によれば、退会は退会月の前月末日までに届け出る必要がある。", kiyaku, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := ScoreGroundedness(GroundednessInput{Response: tt.response, Context: tt.context})
			if got := s.Score >= 0.5; got != tt.ungrounded {
				t.Errorf("score %.3f (ungrounded %v), want ungrounded %v; summary: %s", s.Score, got, tt.ungrounded, s.Summary)
			}
			for _, c := range s.Claims {
				for _, frame := range []string{"According to", "according to", "Согласно", "Según", "によれば"} {
					if strings.HasPrefix(strings.TrimSpace(c.Text), frame) && c.State != ClaimSupported {
						// the claim's text keeps the response's words, but its judgement must not
						// rest on the frame: a claim made only of one has no content left
						if strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(c.Text), frame)) == "" {
							t.Errorf("claim %q is only a frame", c.Text)
						}
					}
				}
			}
		})
	}
}

// TestBlankAttribution pins what blankAttribution blanks, and what it leaves.
func TestBlankAttribution(t *testing.T) {
	tests := []struct{ in, want string }{
		{"According to the March release notes, the flag is gone.", strings.Repeat(" ", len("According to the March release notes, ")) + "the flag is gone."},
		{"Per the lab report, the batch passed.", strings.Repeat(" ", len("Per the lab report, ")) + "the batch passed."},
		{"Per person, the fee is 5 euros.", "Per person, the fee is 5 euros."},
		{"Laut           tritt die Versammlung zusammen.", "               tritt die Versammlung zusammen."},
		{"The flag is gone, according to the notes.", "The flag is gone" + strings.Repeat(" ", len(", according to the notes."))},
		{"According to every survey we ran over the last three years of work, sales rose.", "According to every survey we ran over the last three years of work, sales rose."},
		{"     によれば、退会は前月末までです。", strings.Repeat(" ", len("     によれば、")) + "退会は前月末までです。"},
		{"The bonus is paid in March.", "The bonus is paid in March."},
	}
	for _, tt := range tests {
		if got := blankAttribution(tt.in); got != tt.want {
			t.Errorf("blankAttribution(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
		if len(blankAttribution(tt.in)) != len(tt.in) {
			t.Errorf("blankAttribution(%q) changed the length", tt.in)
		}
	}
}
