package mcpserver

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // decoded to be scaled: screenshots come as PNG, JPEG, GIF or WebP
	"image/jpeg"
	"image/png"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"
)

// An image a project's server returns reaches the Claude API inside the conversation, and the
// API refuses the whole request, that turn and every later one, when one image is over its
// limits: a conversation holding a 9,000-pixel screenshot cannot be continued, not even
// compacted (claude-code #5147, chrome-devtools-mcp #879, mobile-mcp #140). So mcpctl fits each
// image to them before the client sees it.
const (
	// maxImageSide is the API's bound on a side once a request carries more than 20 images,
	// which a session of screenshots soon does (8,000 pixels before that). Claude Code scales
	// the images it reads itself to the same bound, and the model sees no more: the API scales
	// anything over 1,568 pixels down before the model reads it.
	maxImageSide = 2000
	// maxImageData is the API's bound on an image's base64 data, 5 MB.
	maxImageData = 5 << 20
	// maxImagePixels bounds what mcpctl decodes to scale (4 bytes a pixel, 200 MB; a 16-bit
	// PNG takes 8, 400 MB): a larger image is left out with a note rather than risking the
	// server's memory.
	maxImagePixels = 50_000_000
)

// fitMedia fits the images of an upstream's content (image blocks, and image blobs embedded as
// resources) to the API's limits and says, in a text block after each, what it changed: a scaled image's original size (a point in it is then a
// known factor from the original's, which a model clicking or measuring needs), or why one was
// left out. Content without images is returned as it is; audio passes untouched.
func fitMedia(content []mcp.Content) ([]mcp.Content, bool) { return fitContent(content, askTool) }

// What a note for an image left out tells the model to do instead, by where the image came
// from: a tool can be asked again with other arguments; a prompt or resource cannot.
const (
	askTool   = "Ask the tool for a smaller image (a lower resolution, or a region of it), or for a file path to it."
	askServer = "If the server has a tool that gives a smaller image (a lower resolution, or a region of it) or a file path to it, use that instead."
)

// fitContent is fitMedia with the advice a note for an image left out gives (askTool, askServer).
func fitContent(content []mcp.Content, ask string) ([]mcp.Content, bool) {
	var out []mcp.Content
	for i, c := range content {
		fitted, changed := fitBlock(c, ask)
		if !changed {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			out = append(make([]mcp.Content, 0, len(content)+1), content[:i]...)
		}
		out = append(out, fitted...)
	}
	if out == nil {
		return content, false
	}
	return out, true
}

// fitBlock is what takes c's place when c is an image over the API's limits, or an embedded
// resource holding one (a client may attach that as an image too): the fitted image and a note,
// or the note alone. changed is false for every other block.
func fitBlock(c mcp.Content, ask string) (blocks []mcp.Content, changed bool) {
	switch c := c.(type) {
	case mcp.ImageContent:
		fitted, note := fitImage(c, ask)
		if note == "" {
			return nil, false
		}
		if fitted != nil {
			blocks = append(blocks, *fitted)
		}
		return append(blocks, mcp.NewTextContent(note)), true
	case mcp.EmbeddedResource:
		fitted, notes := fitResourceImages([]mcp.ResourceContents{c.Resource}, ask)
		if len(notes) == 0 {
			return nil, false
		}
		c.Resource = fitted[0]
		if _, left := c.Resource.(mcp.TextResourceContents); left {
			return []mcp.Content{c}, true // the resource's text is the note
		}
		return []mcp.Content{c, mcp.NewTextContent(notes[0])}, true
	}
	return nil, false
}

// fitPromptImages fits the image messages of an upstream's prompt as fitMedia fits a tool's
// content: a prompt's messages go into the conversation as they are, and one image over the
// limits ends it as surely. A message holds one block, so a scaled image stays a message and its
// note follows in a text message of the same role; an image left out becomes a text message
// with the note.
func fitPromptImages(msgs []mcp.PromptMessage) ([]mcp.PromptMessage, bool) {
	var out []mcp.PromptMessage
	for i, m := range msgs {
		blocks, changed := fitContent([]mcp.Content{m.Content}, askServer)
		if !changed {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]mcp.PromptMessage, 0, len(msgs)+1), msgs[:i]...)
		}
		for _, b := range blocks {
			out = append(out, mcp.PromptMessage{Role: m.Role, Content: b})
		}
	}
	if out == nil {
		return msgs, false
	}
	return out, true
}

// fitResourceImages fits the image blobs (mimeType image/*) of an upstream's resource, which a
// client attaches to the conversation as an image. A scaled blob keeps its place and URI (its
// mimeType changes with a re-encoding), and contents have no place for a note beside it: the
// notes are returned for the log. One that cannot be fitted becomes text contents under the
// same URI, saying what it was and why it is not there, and ask: what to do instead.
func fitResourceImages(contents []mcp.ResourceContents, ask string) (out []mcp.ResourceContents, notes []string) {
	out = contents
	for i, c := range contents {
		b, ok := c.(mcp.BlobResourceContents)
		if !ok || !strings.HasPrefix(b.MIMEType, "image/") {
			continue
		}
		fitted, note := fitImage(mcp.NewImageContent(b.Blob, b.MIMEType), ask)
		if note == "" {
			continue
		}
		if len(notes) == 0 {
			out = slices.Clone(contents) // the caller's slice is the upstream's result
		}
		notes = append(notes, note)
		if fitted == nil {
			out[i] = mcp.TextResourceContents{URI: b.URI, MIMEType: "text/plain", Text: note}
			continue
		}
		b.Blob, b.MIMEType = fitted.Data, fitted.MIMEType
		out[i] = b
	}
	return out, notes
}

// fitImage is img within the API's limits, or nil when it cannot be made so, and a note saying
// what was done (for one left out, ending with ask); an image already within them comes back
// with no note.
func fitImage(img mcp.ImageContent, ask string) (*mcp.ImageContent, string) {
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		if len(img.Data) > maxImageData {
			return nil, leftOut(img, "", "its data is not valid base64", ask)
		}
		return &img, "" // not ours to judge: the client decides what to do with it
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	switch {
	case err != nil && len(img.Data) > maxImageData:
		return nil, leftOut(img, "", "mcpctl cannot read its format ("+img.MIMEType+") to scale it", ask)
	case err != nil:
		return &img, ""
	case cfg.Width <= maxImageSide && cfg.Height <= maxImageSide && len(img.Data) <= maxImageData:
		return &img, ""
	}
	dims := fmt.Sprintf("%d×%d pixels", cfg.Width, cfg.Height)
	if cfg.Width*cfg.Height > maxImagePixels {
		return nil, leftOut(img, dims, fmt.Sprintf("it is too large for mcpctl to scale (over %d million pixels)", maxImagePixels/1_000_000), ask)
	}
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, leftOut(img, dims, "it could not be decoded to scale it: "+err.Error(), ask)
	}
	var fitted image.Image = src
	w, h := fitSides(cfg.Width, cfg.Height)
	if w != cfg.Width || h != cfg.Height {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		fitted = dst
	}
	data, mime, err := encodeImage(fitted, format)
	if err != nil {
		return nil, leftOut(img, dims, "it could not be encoded once scaled: "+err.Error(), ask)
	}
	if len(data) > maxImageData {
		return nil, leftOut(img, dims, fmt.Sprintf("even scaled to %d×%d it takes %s of data", w, h, sizeOf(len(data))), ask)
	}
	out := img
	out.Data, out.MIMEType = data, mime
	if fitted == src {
		// Within the sides, over the data bound: a photo saved as PNG, say.
		return &out, fmt.Sprintf("[mcpctl re-encoded the image above (%s) as %s, %s of data where it had %s, to fit the Claude API's 5 MB]",
			dims, mime, sizeOf(len(data)), sizeOf(len(img.Data)))
	}
	note := fmt.Sprintf("[mcpctl scaled the image above from %s to %d×%d to fit the Claude API's limits (%d pixels a side, 5 MB)", dims, w, h, maxImageSide)
	return &out, note + fmt.Sprintf("; a point (x, y) in it is (%.4g·x, %.4g·y) in the original]", float64(cfg.Width)/float64(w), float64(cfg.Height)/float64(h))
}

// fitSides scales w×h down to fit maxImageSide on both sides, keeping its aspect (and at least
// a pixel a side).
func fitSides(w, h int) (int, int) {
	if w <= maxImageSide && h <= maxImageSide {
		return w, h
	}
	if w >= h {
		return maxImageSide, max(1, h*maxImageSide/w)
	}
	return max(1, w*maxImageSide/h), maxImageSide
}

// encodeImage encodes a scaled or re-encoded image: one that came as JPEG, WebP or another
// photo format as JPEG; one that came as PNG or GIF (screenshots and diagrams, which PNG keeps
// sharp) as PNG, unless it is opaque and its JPEG is smaller (a photo saved as PNG), or its PNG
// is over the data bound. Of two encodings that fit, never the larger: images are what fills a
// conversation. A transparent image's JPEG is flattened on white, not the same image, so it is
// only the fallback for one.
func encodeImage(img image.Image, format string) (data, mime string, err error) {
	if format != "png" && format != "gif" {
		j, err := encodeJPEG(img)
		if err != nil {
			return "", "", err
		}
		return base64.StdEncoding.EncodeToString(j), "image/jpeg", nil
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", "", err
	}
	fits := base64.StdEncoding.EncodedLen(buf.Len()) <= maxImageData
	if o, ok := img.(interface{ Opaque() bool }); fits && (!ok || !o.Opaque()) {
		return base64.StdEncoding.EncodeToString(buf.Bytes()), "image/png", nil
	}
	j, err := encodeJPEG(img)
	if err != nil {
		return "", "", err
	}
	if fits && buf.Len() <= len(j) {
		return base64.StdEncoding.EncodeToString(buf.Bytes()), "image/png", nil
	}
	return base64.StdEncoding.EncodeToString(j), "image/jpeg", nil
}

// encodeJPEG is img as a JPEG of quality 85, where text stays legible and a screenshot takes
// a fraction of its PNG.
func encodeJPEG(img image.Image) ([]byte, error) {
	if o, ok := img.(interface{ Opaque() bool }); !ok || !o.Opaque() {
		// JPEG has no transparency: what was transparent would turn black, so it goes on white.
		flat := image.NewRGBA(img.Bounds())
		draw.Draw(flat, flat.Bounds(), image.White, image.Point{}, draw.Src)
		draw.Draw(flat, flat.Bounds(), img, img.Bounds().Min, draw.Over)
		img = flat
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// leftOut is the note that stands for an image mcpctl could not fit: what it was, why, and
// what the model can ask for instead (ask).
func leftOut(img mcp.ImageContent, dims, why, ask string) string {
	what := img.MIMEType
	if dims != "" {
		what += ", " + dims
	}
	return fmt.Sprintf("[mcpctl left out an image here (%s, %s of data): the Claude API refuses an image over %d pixels a side or 5 MB, which would end this conversation, and %s. %s]",
		what, sizeOf(len(img.Data)), maxImageSide, why, ask)
}

// sizeOf is n bytes as a person reads it.
func sizeOf(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// dropMediaCopies takes out of a result's structuredContent the copies of its images and audio:
// a server that returns a screenshot as an image block and again, as base64, in its structured
// output has Claude Code put the copy into the model's context as text, some hundreds of
// thousands of tokens (claude-code #70280). Each string that is a block's data (or a data: URL
// of it) becomes a short mark saying where the image is. Only for a tool listed without its output
// schema (every upstream tool once a content pipeline runs): the output no longer matches it.
func dropMediaCopies(res *mcp.CallToolResult) bool {
	raw := res.RawStructuredContent
	if len(raw) == 0 && res.StructuredContent != nil {
		var err error
		if raw, err = json.Marshal(res.StructuredContent); err != nil {
			return false
		}
	}
	if len(raw) == 0 {
		return false
	}
	marks := map[string]string{}
	for _, c := range res.Content {
		var data, kind, mime string
		switch m := c.(type) {
		case mcp.ImageContent:
			data, kind, mime = m.Data, "image", m.MIMEType
		case mcp.AudioContent:
			data, kind, mime = m.Data, "audio", m.MIMEType
		default:
			continue
		}
		// Short data costs little, and a short string may as well be a value of its own.
		if len(data) >= 1024 && bytes.Contains(raw, []byte(data)) {
			marks[data] = fmt.Sprintf("[%s data (%s, %s of base64): the %s is in this result's content]", kind, mime, sizeOf(len(data)), kind)
		}
	}
	if len(marks) == 0 {
		return false
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return false
	}
	res.StructuredContent, res.RawStructuredContent = replaceCopies(v, marks), nil
	return true
}

// replaceCopies is v with every string that is, or is a data: URL of, a key of marks replaced by
// its mark.
func replaceCopies(v any, marks map[string]string) any {
	switch t := v.(type) {
	case string:
		s := t
		if strings.HasPrefix(s, "data:") {
			if i := strings.Index(s, ";base64,"); i >= 0 {
				s = s[i+len(";base64,"):]
			}
		}
		if m, ok := marks[s]; ok {
			return m
		}
	case []any:
		for i := range t {
			t[i] = replaceCopies(t[i], marks)
		}
	case map[string]any:
		for k := range t {
			t[k] = replaceCopies(t[k], marks)
		}
	}
	return v
}
