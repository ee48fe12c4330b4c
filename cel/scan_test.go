package cel

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestScanTemplate(t *testing.T) {
	lit := func(s string, off int) segment { return segment{text: s, offset: off} }
	expr := func(s string, off int) segment { return segment{text: s, expr: true, offset: off} }
	tests := []struct {
		name string
		in   string
		want []segment
	}{
		{"no expression", "plain", []segment{lit("plain", 0)}},
		{"empty string", "", []segment{lit("", 0)}},
		{"whole expression", "${state.x}", []segment{expr("state.x", 2)}},
		{"stripped source", "${  state.x\t}", []segment{expr("state.x", 4)}},
		{"surrounding text", "a ${x} b", []segment{lit("a ", 0), expr("x", 4), lit(" b", 6)}},
		{"adjacent", "${'a'}${'b'}", []segment{expr("'a'", 2), expr("'b'", 8)}},
		{"brace in single quotes", "wrapped ${'a}b'} value", []segment{lit("wrapped ", 0), expr("'a}b'", 10), lit(" value", 16)}},
		{"brace in double quotes", `${"}"}`, []segment{expr(`"}"`, 2)}},
		{"escaped quote in string", `${'a\'}'}`, []segment{expr(`'a\'}'`, 2)}},
		{"raw string keeps backslash", `${r'a\'}`, []segment{expr(`r'a\'`, 2)}},
		{"bytes literal", `${b'}'}`, []segment{expr(`b'}'`, 2)}},
		{"raw bytes literal", `${rb'}'}`, []segment{expr(`rb'}'`, 2)}},
		{"triple quotes", "${'''a}\n'b'''}", []segment{expr("'''a}\n'b'''", 2)}},
		{"triple double quotes", `${"""}"""}`, []segment{expr(`"""}"""`, 2)}},
		{"map literal", "result: ${ {'k': 'v'}.k } end", []segment{lit("result: ", 0), expr("{'k': 'v'}.k", 11), lit(" end", 25)}},
		{"map literal no space", "${{'query': 'ai agents'}.query}", []segment{expr("{'query': 'ai agents'}.query", 2)}},
		{"escape idiom", "$5 or $more, escaped ${'${'}x", []segment{lit("$5 or $more, escaped ", 0), expr("'${'", 23), lit("x", 28)}},
		{"lone dollar", "$", []segment{lit("$", 0)}},
		{"comment hides brace", "${x // }\n}", []segment{expr("x // }", 2)}},
		{"operators", "${a && b || !c ? 1 : 2 == 3 != 4 <= 5}", []segment{expr("a && b || !c ? 1 : 2 == 3 != 4 <= 5", 2)}},
		{"numbers", "${1.5e+3 + 0x1F + 2u + .5}", []segment{expr("1.5e+3 + 0x1F + 2u + .5", 2)}},
		{"quoted field", "${a.`b-c`}", []segment{expr("a.`b-c`", 2)}},
		{"non-ascii literal text", "é ${'ü'} ñ", []segment{lit("é ", 0), expr("'ü'", 5), lit(" ñ", 10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scanTemplate(tt.in)
			require.Nil(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestScanTemplateErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		code    string
		message string
		offset  int
	}{
		{"unterminated", "cost ${state.a", CodeTemplateUnterminated,
			"unterminated ${...} expression in 'cost ${state.a'", 5},
		{"unterminated nested", "${ {'a': 1}", CodeTemplateUnterminated,
			"unterminated ${...} expression in \"${ {'a': 1}\"", 0},
		{"empty", "x ${} y", CodeTemplateEmpty, "empty CEL expression in 'x ${} y'", 2},
		{"blank", "${   }", CodeTemplateEmpty, "empty CEL expression in '${   }'", 0},
		{"bad character", "${state.x # }", CodeTemplateInvalid,
			"unterminated or invalid ${...} expression in '${state.x # }': No terminal matches '#' in the current parser context, at line 1 col 9", 10},
		{"unclosed string", "${'abc}", CodeTemplateInvalid,
			"unterminated or invalid ${...} expression in \"${'abc}\": No terminal matches ''' in the current parser context, at line 1 col 1", 2},
		{"newline in string", "${'a\n'}", CodeTemplateInvalid,
			"unterminated or invalid ${...} expression in \"${'a\\n'}\": No terminal matches ''' in the current parser context, at line 1 col 1", 2},
		{"nested dollar", "${${x}}", CodeTemplateInvalid,
			"unterminated or invalid ${...} expression in '${${x}}': No terminal matches '$' in the current parser context, at line 1 col 1", 2},
		{"single equals", "${a = b}", CodeTemplateInvalid,
			"unterminated or invalid ${...} expression in '${a = b}': No terminal matches '=' in the current parser context, at line 1 col 3", 4},
		{"second line", "${a +\n  @}", CodeTemplateInvalid,
			"unterminated or invalid ${...} expression in '${a +\\n  @}': No terminal matches '@' in the current parser context, at line 2 col 3", 8},
		{"non-ascii outside string", "${é}", CodeTemplateInvalid,
			"unterminated or invalid ${...} expression in '${é}': No terminal matches 'é' in the current parser context, at line 1 col 1", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scanTemplate(tt.in)
			require.NotNil(t, err)
			assert.Equal(t, tt.code, err.Code)
			assert.Equal(t, tt.message, err.Message)
			assert.Equal(t, tt.offset, err.Offset)
		})
	}
}

func TestPyStrip(t *testing.T) {
	tests := []struct {
		in, want string
		lead     int
	}{
		{"  a b  ", "a b", 2},
		{"\t\n\v\f\r x \x1c\x1f", "x", 6},
		{"\u00a0\u3000x\u2028", "x", 5},
		{"", "", 0},
		{"   ", "", 3},
	}
	for _, tt := range tests {
		got, lead := pyStrip(tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		if tt.want != "" {
			assert.Equal(t, tt.lead, lead, "%q", tt.in)
		}
	}
}

func TestUnwrapExpr(t *testing.T) {
	tests := []struct {
		in, want string
		off      int
	}{
		{"state.x", "state.x", 0},
		{"  ${ state.x }  ", "state.x", 5},
		{"${}", "", 2},
		{"${a} + ${b}", "a} + ${b", 2},
		{"{'a': 1}", "{'a': 1}", 0},
	}
	for _, tt := range tests {
		got, off := unwrapExpr(tt.in)
		assert.Equal(t, tt.want, got, "%q", tt.in)
		assert.Equal(t, tt.off, off, "%q", tt.in)
	}
}
