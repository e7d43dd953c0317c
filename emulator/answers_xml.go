package emulator

import (
	"encoding/xml"
	"errors"
	"io"
	"strings"
)

// reindentXML answers an XML document the way API Management answers a policy (the
// ApiManagementCreateApiPolicy example: "<policies> <inbound /> <backend>    ..." is
// answered "<policies>\r\n  <inbound />\r\n  <backend>\r\n    <forward-request />..."):
// whitespace between elements dropped, each element on its own line indented by two
// spaces, lines joined with CRLF, empty elements self-closed, text kept as it is.
// Anything that does not parse as XML is answered unchanged. Reindenting twice gives
// the same string.
func reindentXML(s string) string {
	nodes, err := parseXMLNodes(s)
	if err != nil || len(nodes) == 0 {
		return s
	}
	var b strings.Builder
	for i, n := range nodes {
		if i > 0 {
			b.WriteString("\r\n")
		}
		n.render(&b, 0)
	}
	return b.String()
}

// xmlNode is an element, a text, a comment or a processing instruction.
type xmlNode struct {
	element  *xml.StartElement
	children []*xmlNode
	text     string // text, or the whole markup of a comment or instruction
	markup   bool
}

func parseXMLNodes(s string) ([]*xmlNode, error) {
	d := xml.NewDecoder(strings.NewReader(s))
	root := &xmlNode{}
	stack := []*xmlNode{root}
	for {
		tok, err := d.RawToken()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			el := t.Copy()
			n := &xmlNode{element: &el}
			top.children = append(top.children, n)
			stack = append(stack, n)
		case xml.EndElement:
			if len(stack) == 1 || top.element.Name != t.Name {
				return nil, errors.New("unbalanced end element")
			}
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 1 && strings.TrimSpace(string(t)) != "" {
				return nil, errors.New("text outside the root element")
			}
			top.children = append(top.children, &xmlNode{text: string(t)})
		case xml.Comment:
			top.children = append(top.children, &xmlNode{text: "<!--" + string(t) + "-->", markup: true})
		case xml.ProcInst:
			top.children = append(top.children, &xmlNode{text: "<?" + t.Target + " " + string(t.Inst) + "?>", markup: true})
		case xml.Directive:
			top.children = append(top.children, &xmlNode{text: "<!" + string(t) + ">", markup: true})
		}
	}
	if len(stack) != 1 {
		return nil, errors.New("unclosed element")
	}
	return root.significant(), nil
}

// significant drops whitespace-only texts when n holds no other text (mixed content
// keeps everything).
func (n *xmlNode) significant() []*xmlNode {
	var out []*xmlNode
	for _, c := range n.children {
		if c.element == nil && !c.markup {
			if strings.TrimSpace(c.text) != "" {
				return n.children
			}
			continue
		}
		out = append(out, c)
	}
	return out
}

func (n *xmlNode) render(b *strings.Builder, depth int) {
	indent := strings.Repeat("  ", depth)
	b.WriteString(indent)
	if n.element == nil {
		if n.markup {
			b.WriteString(n.text)
		} else {
			b.WriteString(escapeXMLText(n.text))
		}
		return
	}
	kids := n.significant()
	switch {
	case len(kids) == 0:
		writeStart(b, n.element, true)
	case hasText(kids):
		// Text is answered as it was sent, so text and mixed content stay on one line.
		writeStart(b, n.element, false)
		for _, k := range kids {
			k.renderInline(b)
		}
		writeEnd(b, n.element)
	default:
		writeStart(b, n.element, false)
		for _, k := range kids {
			b.WriteString("\r\n")
			k.render(b, depth+1)
		}
		b.WriteString("\r\n" + indent)
		writeEnd(b, n.element)
	}
}

func hasText(kids []*xmlNode) bool {
	for _, k := range kids {
		if k.element == nil && !k.markup {
			return true
		}
	}
	return false
}

// renderInline writes n with no added whitespace (inside text or mixed content).
func (n *xmlNode) renderInline(b *strings.Builder) {
	switch {
	case n.element == nil && n.markup:
		b.WriteString(n.text)
	case n.element == nil:
		b.WriteString(escapeXMLText(n.text))
	case len(n.children) == 0:
		writeStart(b, n.element, true)
	default:
		writeStart(b, n.element, false)
		for _, k := range n.children {
			k.renderInline(b)
		}
		writeEnd(b, n.element)
	}
}

func xmlName(n xml.Name) string {
	if n.Space != "" {
		return n.Space + ":" + n.Local
	}
	return n.Local
}

func writeStart(b *strings.Builder, el *xml.StartElement, empty bool) {
	b.WriteString("<" + xmlName(el.Name))
	for _, a := range el.Attr {
		b.WriteString(" " + xmlName(a.Name) + `="` + escapeXMLAttr(a.Value) + `"`)
	}
	if empty {
		b.WriteString(" />")
		return
	}
	b.WriteString(">")
}

func writeEnd(b *strings.Builder, el *xml.StartElement) {
	b.WriteString("</" + xmlName(el.Name) + ">")
}

var (
	xmlTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
	xmlAttrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", `"`, "&quot;")
)

func escapeXMLText(s string) string { return xmlTextEscaper.Replace(s) }
func escapeXMLAttr(s string) string { return xmlAttrEscaper.Replace(s) }
