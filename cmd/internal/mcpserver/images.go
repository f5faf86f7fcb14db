package mcpserver

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decoded to be scaled: screenshots come as PNG, JPEG, GIF or WebP
	"image/jpeg"
	"image/png"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

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
	// maxImagePixels bounds what mcpctl decodes to scale: a larger image is left out with a
	// note. What one scaling takes (scaleCost) at this bound, for a square 16-bit PNG: 400 MB
	// decoded (8 bytes a pixel), 450 MB of Catmull-Rom's buffer (32 bytes for each pixel of a
	// 2,000-column × 7,071-row intermediate) and 32 MB for the scaled image and its JPEG copy,
	// some 880 MB; an 8-bit one takes 680 MB. decodeMemory makes that one at a time.
	maxImagePixels = 50_000_000
)

// The API also bounds a request: at most 100 images and 32 MB, everything in the conversation
// included (and a request of more than 20 images has maxImageSide). A result over either ends
// the conversation as one image over its limits does, and one near them leaves no room for the
// next turns. So mcpctl passes, from one result, at most maxResultImages images and
// maxResultImageData of their data, in order; the rest are left out with one note. Variables,
// so tests can lower them.
var (
	// maxResultImages: screenshot tools send one or a few; 20 keeps a result within the API's
	// 20-image step, and five such results are still under its 100.
	maxResultImages = 20
	// maxResultImageData, a quarter of the API's 32 MB: room for one image at maxImageData and
	// a few more, and for three more such results and the conversation's text.
	maxResultImageData = 8 << 20
)

// fitMedia fits the images of an upstream's content (image blocks, and image blobs embedded as
// resources) to the API's limits and says, in a text block after each, what it changed: a
// scaled image's original size (a point in it is then a known factor from the original's, which
// a model clicking or measuring needs), or why one was left out. An image in a format the API
// does not take is left out, an SVG given as its source in text (svg), and an image labelled
// with another type than its data's goes with its data's. Past the result's bounds
// (maxResultImages, maxResultImageData) images are left out, one text block in place of the
// first saying how many. Content without images is returned as it is; audio passes untouched.
// ctx ends a wait for decodeMemory.
func fitMedia(ctx context.Context, content []mcp.Content) ([]mcp.Content, bool) {
	return fitContent(ctx, content, askTool)
}

// advice is what a note for an image left out tells the model to do instead, by where the image
// came from: a tool can be asked again with other arguments; a prompt or resource cannot.
type advice struct {
	one    string // for an image over the API's limits
	many   string // for the images past a result's bounds
	format string // for an image in a format the API does not take
	svg    string // for an SVG image given as its source
}

var (
	askTool = advice{
		one:    "Ask the tool for a smaller image (a lower resolution, or a region of it), or for a file path to it.",
		many:   "Ask the tool for them in later calls, a few at a time, or for file paths to them.",
		format: "Ask the tool for a PNG or JPEG if it can give one, or for a file path to the image.",
		svg:    "Ask the tool for PNG if it can render one.",
	}
	askServer = advice{
		one:    "If the server has a tool that gives a smaller image (a lower resolution, or a region of it) or a file path to it, use that instead.",
		many:   "If the server has a tool that gives these images a few at a time, or file paths to them, use that instead.",
		format: "If the server has a tool that gives it as PNG or JPEG, or a file path to it, use that instead.",
		svg:    "If the server has a tool that renders it as PNG, use that to see it.",
	}
)

// maxSVGText bounds the SVG source one result passes as text (svg): a diagram's source is a few
// KB, and one that embeds its raster images as base64 can be megabytes that say nothing.
const maxSVGText = 100 << 10

// resultImages counts one result's images against maxResultImages and maxResultImageData, and
// what it left out past them, for the one note that stands for those.
type resultImages struct {
	ctx              context.Context
	ask              advice
	svgText          int  // the SVG source passed as text (maxSVGText)
	n, data          int  // images passed, and their base64 data
	full             bool // one was left out, and so is every image after it
	left, leftData   int  // images left out past the bounds, and their data as they came
	leftMin, leftMax int
	leftMIMEs        []string
}

// fit is img fitted (fitImage) and counted. dropped says it is past the result's bounds: it and
// every image after it are left out, without being decoded, for leftNote to report; fitted is
// then nil and note empty.
func (r *resultImages) fit(img mcp.ImageContent) (fitted *mcp.ImageContent, note string, dropped bool) {
	if !r.full && r.n < maxResultImages {
		fitted, note = fitImage(r.ctx, img, r.ask)
		if fitted == nil {
			return nil, note, false // its own note says why: it counts for nothing
		}
		if r.data+len(fitted.Data) <= maxResultImageData {
			r.n++
			r.data += len(fitted.Data)
			return fitted, note, false
		}
	}
	// Once one is left out, so is every later one, however small: the note can then say "from
	// here on", and the model knows which to ask for.
	r.full = true
	if r.left == 0 || len(img.Data) < r.leftMin {
		r.leftMin = len(img.Data)
	}
	r.leftMax = max(r.leftMax, len(img.Data))
	r.left++
	r.leftData += len(img.Data)
	if !slices.Contains(r.leftMIMEs, img.MIMEType) {
		r.leftMIMEs = append(r.leftMIMEs, img.MIMEType)
	}
	return nil, "", true
}

// leftNote is the note that stands for the images fit left out.
func (r *resultImages) leftNote() string {
	what, sizes := fmt.Sprintf("the %d images from here on", r.left), sizeOf(r.leftMin)+" to "+sizeOf(r.leftMax)
	if sizeOf(r.leftMin) == sizeOf(r.leftMax) {
		sizes = sizeOf(r.leftMax)
	}
	sizes += " of data each, " + sizeOf(r.leftData) + " in all"
	if r.left == 1 {
		what, sizes = "an image here", sizeOf(r.leftData)+" of data"
	}
	return fmt.Sprintf("[mcpctl left out %s (%s, %s): the Claude API takes at most 100 images and 32 MB in a request, the whole conversation included, so mcpctl passes at most %d images and %s of them from one result, and this result had %d images (%s) before. %s]",
		what, strings.Join(r.leftMIMEs, ", "), sizes, maxResultImages, sizeOf(maxResultImageData), r.n, sizeOf(r.data), r.ask.many)
}

// fitContent is fitMedia with the advice a note for an image left out gives (askTool, askServer).
func fitContent(ctx context.Context, content []mcp.Content, ask advice) ([]mcp.Content, bool) {
	r := &resultImages{ctx: ctx, ask: ask}
	var out []mcp.Content
	noteAt := -1
	for i, c := range content {
		fitted, changed, dropped := r.block(c)
		if !changed {
			if out != nil {
				out = append(out, c)
			}
			continue
		}
		if out == nil {
			out = append(make([]mcp.Content, 0, len(content)+1), content[:i]...)
		}
		if dropped {
			if noteAt < 0 {
				noteAt = len(out)
				out = append(out, nil) // leftNote, once it knows them all
			}
			continue
		}
		out = append(out, fitted...)
	}
	if out == nil {
		return content, false
	}
	if noteAt >= 0 {
		out[noteAt] = mcp.NewTextContent(r.leftNote())
	}
	return out, true
}

// block is what takes c's place when c is an image the API would refuse (over its limits, in
// another format, or labelled with another type than its data's), or an embedded resource
// holding one (a client may attach that as an image too): the fitted image and any note, the
// note alone, or an SVG's source. changed is false for every other block; dropped says c is
// past the result's bounds (r.fit) and nothing takes its place.
func (r *resultImages) block(c mcp.Content) (blocks []mcp.Content, changed, dropped bool) {
	switch c := c.(type) {
	case mcp.ImageContent:
		if src, note, ok := r.svg(c); ok {
			return []mcp.Content{mcp.NewTextContent(note + src)}, true, false
		}
		fitted, note, dropped := r.fit(c)
		if dropped {
			return nil, true, true
		}
		if note == "" && fitted.MIMEType == c.MIMEType {
			return nil, false, false
		}
		if fitted != nil {
			blocks = append(blocks, *fitted)
		}
		if note != "" {
			blocks = append(blocks, mcp.NewTextContent(note))
		}
		return blocks, true, false
	case mcp.EmbeddedResource:
		fitted, note, changed, dropped := r.resource(c.Resource)
		if dropped {
			return nil, true, true
		}
		if !changed {
			return nil, false, false
		}
		c.Resource = fitted
		if _, left := c.Resource.(mcp.TextResourceContents); left || note == "" {
			return []mcp.Content{c}, true, false // the resource's text is the note, or it needs none
		}
		return []mcp.Content{c, mcp.NewTextContent(note)}, true, false
	}
	return nil, false, false
}

// resource is c fitted when it is an image blob (mimeType image/*), which a client attaches to
// the conversation as an image: a scaled blob keeps its URI (its mimeType changes with a
// re-encoding, or when it was not what the data is); one that cannot be fitted becomes text
// contents under the same URI, saying what it was, why it is not there, and what to do instead;
// an SVG becomes text contents of its source. changed is false when c passes as it came, and
// note is empty when nothing needs saying; dropped as for fit.
func (r *resultImages) resource(c mcp.ResourceContents) (out mcp.ResourceContents, note string, changed, dropped bool) {
	b, ok := c.(mcp.BlobResourceContents)
	if !ok || !strings.HasPrefix(b.MIMEType, "image/") {
		return c, "", false, false
	}
	if src, note, ok := r.svg(mcp.NewImageContent(b.Blob, b.MIMEType)); ok {
		if src == "" {
			return mcp.TextResourceContents{URI: b.URI, MIMEType: "text/plain", Text: note}, note, true, false
		}
		return mcp.TextResourceContents{URI: b.URI, MIMEType: b.MIMEType, Text: src}, "", true, false
	}
	fitted, note, dropped := r.fit(mcp.NewImageContent(b.Blob, b.MIMEType))
	switch {
	case dropped:
		return c, "", false, true
	case fitted == nil:
		return mcp.TextResourceContents{URI: b.URI, MIMEType: "text/plain", Text: note}, note, true, false
	case note == "" && fitted.MIMEType == b.MIMEType:
		return c, "", false, false
	}
	b.Blob, b.MIMEType = fitted.Data, fitted.MIMEType
	return b, note, true, false
}

// fitPromptImages fits the image messages of an upstream's prompt as fitMedia fits a tool's
// content: a prompt's messages go into the conversation as they are, and one image over the
// limits ends it as surely. A message holds one block, so a scaled image stays a message and its
// note follows in a text message of the same role; an image left out becomes a text message
// with the note; the images past the prompt's bounds, one text message in place of the first.
func fitPromptImages(ctx context.Context, msgs []mcp.PromptMessage) ([]mcp.PromptMessage, bool) {
	r := &resultImages{ctx: ctx, ask: askServer}
	var out []mcp.PromptMessage
	noteAt := -1
	for i, m := range msgs {
		blocks, changed, dropped := r.block(m.Content)
		if !changed {
			if out != nil {
				out = append(out, m)
			}
			continue
		}
		if out == nil {
			out = append(make([]mcp.PromptMessage, 0, len(msgs)+1), msgs[:i]...)
		}
		if dropped {
			if noteAt < 0 {
				noteAt = len(out)
				out = append(out, mcp.PromptMessage{Role: m.Role})
			}
			continue
		}
		for _, b := range blocks {
			out = append(out, mcp.PromptMessage{Role: m.Role, Content: b})
		}
	}
	if out == nil {
		return msgs, false
	}
	if noteAt >= 0 {
		out[noteAt].Content = mcp.NewTextContent(r.leftNote())
	}
	return out, true
}

// fitResourceImages fits the image blobs of an upstream's resource (resultImages.resource). A
// scaled blob keeps its place and URI, and contents have no place for a note beside it: the
// notes are returned for the log. The blobs past the resource's bounds are left out, one text
// contents under the first's URI saying how many.
func fitResourceImages(ctx context.Context, contents []mcp.ResourceContents, ask advice) (out []mcp.ResourceContents, notes []string) {
	r := &resultImages{ctx: ctx, ask: ask}
	out = contents
	noteAt, logAt := -1, -1
	copied := false
	for i, c := range contents {
		fitted, note, changed, dropped := r.resource(c)
		if !changed && !dropped {
			if copied {
				out = append(out, c)
			}
			continue
		}
		if !copied {
			copied = true
			out = append(make([]mcp.ResourceContents, 0, len(contents)), contents[:i]...) // the caller's slice is the upstream's result
		}
		if dropped {
			if noteAt < 0 {
				noteAt = len(out)
				out = append(out, mcp.TextResourceContents{URI: c.(mcp.BlobResourceContents).URI, MIMEType: "text/plain"})
				logAt = len(notes)
				notes = append(notes, "") // leftNote, once it knows them all
			}
			continue
		}
		if note != "" {
			notes = append(notes, note)
		}
		out = append(out, fitted)
	}
	if noteAt >= 0 {
		note := r.leftNote()
		t := out[noteAt].(mcp.TextResourceContents)
		t.Text = note
		out[noteAt] = t
		notes[logAt] = note
	}
	return out, notes
}

// fitImage is img within the API's limits, or nil when it cannot be made so, and a note saying
// what was done (for one left out, ending with ask); an image already within them comes back
// with no note. Decoding waits its turn for decodeMemory; ctx ends the wait.
func fitImage(ctx context.Context, img mcp.ImageContent, ask advice) (*mcp.ImageContent, string) {
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		return nil, unreadable(img, "its data is not valid base64", ask.format)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		return nil, unreadable(img, "mcpctl cannot read its data as any of those", ask.format)
	}
	switch format {
	case "png", "jpeg", "gif", "webp":
	default: // a decoder some package registered for a format the API does not take
		return nil, unreadable(img, "it is "+format, ask.format)
	}
	// The API also refuses an image whose media type is not what its data is ("Image does not
	// match the provided media type"): the data decides.
	img.MIMEType = "image/" + format
	if cfg.Width <= maxImageSide && cfg.Height <= maxImageSide && len(img.Data) <= maxImageData {
		return &img, ""
	}
	dims := fmt.Sprintf("%d×%d pixels", cfg.Width, cfg.Height)
	if cfg.Width*cfg.Height > maxImagePixels {
		return nil, leftOut(img, dims, fmt.Sprintf("it is too large for mcpctl to scale (over %d million pixels)", maxImagePixels/1_000_000), ask.one)
	}
	w, h := fitSides(cfg.Width, cfg.Height)
	cost := scaleCost(cfg, format, raw, w, h)
	if err := decodeMemory.acquire(ctx, cost); err != nil {
		return nil, leftOut(img, dims, "the request ended while it waited for other images to be scaled first", ask.one)
	}
	defer func() {
		decodeMemory.release(cost)
		if cost >= decodeMemory.size/4 {
			// What it took is garbage now, but the collector's next goal is twice the heap it
			// last found live, with this image in it, and the runtime keeps freed pages: the
			// next large scaling would take its memory beside this one's rather than in its
			// place. Measured, 4 concurrent calls of a 49-megapixel 16-bit PNG: 1.7 GB of RSS
			// without this, 1.35 GB with runtime.GC, 0.86 GB (one alone's) with this.
			debug.FreeOSMemory()
		}
	}()
	src, _, err := image.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, leftOut(img, dims, "it could not be decoded to scale it: "+err.Error(), ask.one)
	}
	var fitted image.Image = src
	if w != cfg.Width || h != cfg.Height {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
		fitted = dst
	}
	data, mime, err := encodeImage(fitted, format)
	if err != nil {
		return nil, leftOut(img, dims, "it could not be encoded once scaled: "+err.Error(), ask.one)
	}
	if len(data) > maxImageData {
		return nil, leftOut(img, dims, fmt.Sprintf("even scaled to %d×%d it takes %s of data", w, h, sizeOf(len(data))), ask.one)
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

// decodeMemory bounds the memory the scalings of all concurrent calls take together: each waits
// until what it takes (scaleCost) is free, so 16 calls with a large image each take turns rather
// than 16 times the memory. One image over it all runs alone.
var decodeMemory = newWeighted(1 << 30)

// scaleCost is the memory, in bytes, fitImage takes to decode raw, an image of cfg in format,
// and scale it to w×h: the decoded image; when scaled, Catmull-Rom's intermediate (4 float64s
// for each pixel of w columns × the source's rows, x/image/draw's kernelScaler.makeTmpBuf) and
// the scaled image; and the copy encodeImage flattens for JPEG. A progressive JPEG is decoded
// by keeping every block's coefficients until the last scan (image/jpeg's progCoeffs): 256
// bytes for each 8×8 block of each component, 4 bytes a sample, counted as if no component were
// subsampled. An RGB or CMYK JPEG is decoded into its component planes first, then converted.
func scaleCost(cfg image.Config, format string, raw []byte, w, h int) int64 {
	bpp := 8 // the widest: 16-bit RGBA
	switch m := cfg.ColorModel; {
	case isPalette(m), m == color.GrayModel, m == color.AlphaModel:
		bpp = 1
	case m == color.Gray16Model, m == color.Alpha16Model:
		bpp = 2
	case m == color.YCbCrModel:
		bpp = 3
	case m == color.RGBAModel, m == color.NRGBAModel, m == color.NYCbCrAModel, m == color.CMYKModel:
		bpp = 4
	}
	pixels := int64(cfg.Width) * int64(cfg.Height)
	cost := pixels * int64(bpp)
	if format == "jpeg" {
		if progressiveJPEG(raw) {
			cost *= 5 // the image's bpp and 4 bytes for each of its bpp samples
		}
		if bpp == 4 {
			cost += 4 * pixels // the planes it was converted from: 3 for RGB, 4 for CMYK
		}
	}
	if w != cfg.Width || h != cfg.Height {
		cost += 32*int64(w)*int64(cfg.Height) + 4*int64(w)*int64(h)
	}
	return cost + 4*int64(w)*int64(h)
}

// progressiveJPEG says raw is a progressive JPEG: its frame header, the first SOFn marker, is
// SOF2. It reads only the markers before it, each skipped by its length, and tolerates what
// image/jpeg tolerates between them (stray bytes, fill, "FF 00", restart markers): a file that
// decodes must not pass as baseline and be charged a fifth of its cost.
func progressiveJPEG(raw []byte) bool {
	if len(raw) < 2 || raw[0] != 0xff || raw[1] != 0xd8 {
		return false
	}
	for i := 2; i+1 < len(raw); {
		if raw[i] != 0xff { // a stray byte, skipped as libjpeg does
			i++
			continue
		}
		switch m := raw[i+1]; {
		case m == 0xff: // fill before a marker
			i++
			continue
		case m == 0x00, m >= 0xd0 && m <= 0xd7: // data, or a restart marker: neither has a length
			i += 2
			continue
		case m == 0xc2:
			return true
		case m == 0xc4: // DHT: a table, not a frame
		case m >= 0xc0 && m <= 0xcf, m == 0xd9, m == 0xda: // another frame, or no frame at all
			return false
		}
		if i+4 > len(raw) {
			return false
		}
		i += 2 + (int(raw[i+2])<<8 | int(raw[i+3]))
	}
	return false
}

// isPalette says m is a color.Palette, which == cannot compare: it is a slice.
func isPalette(m color.Model) bool { _, ok := m.(color.Palette); return ok }

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

// weighted is a semaphore of size units that callers take n at a time, first come first
// served, so a large taker is not starved by a stream of small ones. A taker of more than size
// takes it all: it runs alone rather than never.
type weighted struct {
	mu      sync.Mutex
	size    int64
	used    int64
	waiters []*waiter
}

type waiter struct {
	n     int64
	ready chan struct{} // closed when the units are the waiter's
}

func newWeighted(size int64) *weighted { return &weighted{size: size} }

// acquire takes n units, waiting until they are free or ctx is done; it takes none when it
// returns an error.
func (s *weighted) acquire(ctx context.Context, n int64) error {
	n = min(n, s.size)
	s.mu.Lock()
	if len(s.waiters) == 0 && s.used+n <= s.size {
		s.used += n
		s.mu.Unlock()
		return nil
	}
	w := &waiter{n: n, ready: make(chan struct{})}
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	select {
	case <-w.ready: // granted as ctx ended: give them back
		s.used -= n
	default:
		s.waiters = slices.DeleteFunc(s.waiters, func(x *waiter) bool { return x == w })
	}
	s.grant() // the waiters behind w may fit now
	return ctx.Err()
}

// waiting is how many takers wait.
func (s *weighted) waiting() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.waiters)
}

// release gives back n units taken by acquire.
func (s *weighted) release(n int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.used -= min(n, s.size)
	s.grant()
}

// grant hands the free units to the waiters in order, stopping at the first that does not fit.
func (s *weighted) grant() {
	for len(s.waiters) > 0 && s.used+s.waiters[0].n <= s.size {
		w := s.waiters[0]
		s.used += w.n
		close(w.ready)
		s.waiters = s.waiters[1:]
	}
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

// unreadable is the note for an image left out because it is not one the API takes.
func unreadable(img mcp.ImageContent, why, ask string) string {
	return fmt.Sprintf("[mcpctl left out an image here (%s, %s of data): the Claude API takes only PNG, JPEG, GIF and WebP images and refuses a request holding any other, which would end this conversation, and %s. %s]",
		cmp.Or(img.MIMEType, "no media type"), sizeOf(len(img.Data)), why, ask)
}

// svg is what takes the place of img when it is an SVG image, which the API does not take: its
// source, as SVG is text, headed by note; or, past maxSVGText, note alone (src empty). ok is
// false for any other image, or data that is not UTF-8 text, which fit judges.
func (r *resultImages) svg(img mcp.ImageContent) (src, note string, ok bool) {
	if !strings.HasPrefix(img.MIMEType, "image/svg") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil || !utf8.Valid(raw) {
		return "", "", false
	}
	if r.svgText+len(raw) > maxSVGText {
		return "", unreadable(img, fmt.Sprintf("its source, %s of SVG text, is more than mcpctl passes from one result (%s)", sizeOf(len(raw)), sizeOf(maxSVGText)), r.ask.format), true
	}
	r.svgText += len(raw)
	return string(raw), fmt.Sprintf("[mcpctl: an SVG image (%s) came here; the Claude API takes no SVG image, which would end this conversation, so its source follows as text. %s]\n", sizeOf(len(raw)), r.ask.svg), true
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
