package main

import (
	"fmt"
	"strings"
)

// A block is one captured example in a Markdown file:
//
//	<!-- capture: NAME [fails] [from=PREFIX] -->
//	```
//	$ goslap ... \
//	    ...continued
//	output lines (rewritten by a capture)
//	$ goslap ...   (a block may run several commands in turn)
//	output
//	```
//	<!-- /capture -->
//
// The command lines are the source of truth; everything else inside the
// fence is output and is replaced when the block is captured again.
// from=PREFIX keeps each command's output from its first line that starts
// with PREFIX (no spaces), after a line "…" saying that lines were left
// out: the answer at the end of a long report.
type block struct {
	name     string
	fails    bool    // every command is expected to exit non-zero (error examples)
	from     string  // keep each output from its first line starting with this ("": all)
	open     int     // line index of the opening fence
	close    int     // line index of the closing fence
	commands []cmdAt // in order
}

type cmdAt struct {
	line  int    // index of the "$ " line
	lines int    // how many lines it spans (continuations)
	text  string // the command as the shell reads it, continuations joined
}

const (
	markOpen  = "<!-- capture:"
	markClose = "<!-- /capture -->"
	prompt    = "$ "
)

// parseBlocks finds every marked block of a file's lines. A malformed block
// (no fence, no closing marker, no command) is an error naming the line, so
// a broken marker cannot silently stop being captured or checked.
func parseBlocks(file string, lines []string) ([]block, error) {
	var out []block
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, markOpen) {
			if l == markClose {
				return nil, fmt.Errorf("%s:%d: %s without an opening marker", file, i+1, markClose)
			}
			continue
		}
		if !strings.HasSuffix(l, "-->") {
			return nil, fmt.Errorf("%s:%d: capture marker not closed with -->", file, i+1)
		}
		words := strings.Fields(strings.TrimSuffix(strings.TrimPrefix(l, markOpen), "-->"))
		if len(words) == 0 {
			return nil, fmt.Errorf("%s:%d: capture marker without a name", file, i+1)
		}
		b := block{name: words[0]}
		for _, w := range words[1:] {
			switch {
			case w == "fails":
				b.fails = true
			case strings.HasPrefix(w, "from=") && len(w) > len("from="):
				b.from = strings.TrimPrefix(w, "from=")
			default:
				return nil, fmt.Errorf("%s:%d: capture %s: unknown attribute %q (known: fails, from=PREFIX)", file, i+1, b.name, w)
			}
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			return nil, fmt.Errorf("%s:%d: capture %s: the next line must open a ``` fence", file, i+1, b.name)
		}
		b.open = i + 1
		b.close = -1
		for j := b.open + 1; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], "```") {
				b.close = j
				break
			}
		}
		if b.close < 0 || b.close+1 >= len(lines) || strings.TrimSpace(lines[b.close+1]) != markClose {
			return nil, fmt.Errorf("%s:%d: capture %s: the fence must close and be followed by %s", file, i+1, b.name, markClose)
		}
		for j := b.open + 1; j < b.close; j++ {
			if !strings.HasPrefix(lines[j], prompt) {
				continue
			}
			c := cmdAt{line: j, lines: 1}
			text := strings.TrimPrefix(lines[j], prompt)
			for strings.HasSuffix(text, `\`) && j+1 < b.close {
				j++
				c.lines++
				text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(lines[j])
			}
			c.text = text
			b.commands = append(b.commands, c)
		}
		if len(b.commands) == 0 {
			return nil, fmt.Errorf("%s:%d: capture %s: no \"$ \" command line in the block", file, i+1, b.name)
		}
		out = append(out, b)
		i = b.close + 1
	}
	return out, nil
}

// rewrite returns the lines with each block's output replaced by outputs[k]
// (one entry per command of the block, in order); command lines are kept as
// they are.
func rewrite(lines []string, b block, outputs []string) []string {
	out := append([]string{}, lines[:b.open+1]...)
	for k, c := range b.commands {
		out = append(out, lines[c.line:c.line+c.lines]...)
		o := strings.TrimRight(outputs[k], "\n")
		if o != "" {
			out = append(out, strings.Split(o, "\n")...)
		}
	}
	return append(out, lines[b.close:]...)
}

// splitWords splits a command line as sh does for the quoting the docs use:
// single and double quotes, backslash escapes, $NAME from env. It refuses
// what it does not implement (pipes, redirections, command substitution)
// rather than guess.
func splitWords(s string, env map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	expand := func(i int) (int, error) { // s[i] == '$'
		j := i + 1
		for j < len(s) && (s[j] == '_' || s[j] >= 'A' && s[j] <= 'Z' || s[j] >= 'a' && s[j] <= 'z' || s[j] >= '0' && s[j] <= '9') {
			j++
		}
		if j == i+1 {
			return 0, fmt.Errorf("unsupported $ expansion in %q", s)
		}
		v, ok := env[s[i+1:j]]
		if !ok {
			return 0, fmt.Errorf("unknown variable $%s in %q", s[i+1:j], s)
		}
		cur.WriteString(v)
		return j, nil
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("unterminated ' in %q", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			inWord = true
			i++
			for {
				if i >= len(s) {
					return nil, fmt.Errorf("unterminated \" in %q", s)
				}
				if s[i] == '"' {
					i++
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`, s[i+1]) >= 0 {
					cur.WriteByte(s[i+1])
					i += 2
					continue
				}
				if s[i] == '$' {
					j, err := expand(i)
					if err != nil {
						return nil, err
					}
					i = j
					continue
				}
				cur.WriteByte(s[i])
				i++
			}
		case c == '\\':
			if i+1 < len(s) {
				cur.WriteByte(s[i+1])
			}
			inWord = true
			i += 2
		case c == '$':
			j, err := expand(i)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = j
		case strings.IndexByte("|&;<>`()*?", c) >= 0:
			return nil, fmt.Errorf("shell syntax %q is not supported in a captured command: %q", c, s)
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// fromLine is output from its first line starting with prefix, after a
// line "…" when lines were left out; an output without such a line is an
// error, so a block cannot silently lose its answer.
func fromLine(output, prefix string) (string, error) {
	lines := strings.Split(output, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, prefix) {
			if i == 0 {
				return output, nil
			}
			return "…\n" + strings.Join(lines[i:], "\n"), nil
		}
	}
	return "", fmt.Errorf("no output line starts with %q (the block's from=)", prefix)
}
