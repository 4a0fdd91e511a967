package mdtext

import "testing"

func TestBlock(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text", "plain text"},
		{"# heading\n> quote\n  ```fence\n| a | b |\n~~~\n===\nok  ", "\\# heading\n\\> quote\n  \\```fence\n\\| a | b |\n\\~~~\n\\===\nok"},
		{"\n\n  indented #not a heading\n", "indented #not a heading"},
	}
	for _, tt := range tests {
		if got := Block(tt.in); got != tt.want {
			t.Errorf("Block(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
