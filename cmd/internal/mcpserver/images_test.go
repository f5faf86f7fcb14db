package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// stripes is a w×h grey image of 16-pixel stripes: it compresses as a screenshot does.
func stripes(w, h int) *image.Gray {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.SetGray(x, y, color.Gray{Y: uint8((x/16 + y/16) % 2 * 200)})
		}
	}
	return img
}

func pngData(t testing.TB, img image.Image) string {
	t.Helper()
	return base64.StdEncoding.EncodeToString(pngBytes(t, img))
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// decodeBlock decodes an image block's data, failing the test when it is not an image.
func decodeBlock(t *testing.T, c mcp.Content) (image.Config, string) {
	t.Helper()
	img, ok := c.(mcp.ImageContent)
	if !ok {
		t.Fatalf("block is %T, want an image", c)
	}
	raw, err := base64.StdEncoding.DecodeString(img.Data)
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if want := "image/" + format; img.MIMEType != want {
		t.Errorf("mimeType %q, want %q: it says what the data is", img.MIMEType, want)
	}
	if len(img.Data) > maxImageData {
		t.Errorf("%d bytes of data, want at most %d", len(img.Data), maxImageData)
	}
	return cfg, format
}

// A full-page screenshot taller than the API takes is scaled to fit, keeps its format, and is
// followed by a note giving the original size and the factor back to it.
func TestFitMediaScalesATallScreenshot(t *testing.T) {
	before := mcp.NewTextContent("the page")
	content := []mcp.Content{before, mcp.NewImageContent(pngData(t, stripes(1200, 6000)), "image/png")}
	out, changed := fitMedia(t.Context(), content)
	if !changed || len(out) != 3 {
		t.Fatalf("changed %v, %d blocks; want the text, the scaled image and a note", changed, len(out))
	}
	if out[0] != before {
		t.Errorf("the text before the image changed: %v", out[0])
	}
	cfg, format := decodeBlock(t, out[1])
	if cfg.Width != 400 || cfg.Height != 2000 || format != "png" {
		t.Errorf("scaled to %d×%d %s, want 400×2000 png", cfg.Width, cfg.Height, format)
	}
	note, _ := out[2].(mcp.TextContent)
	for _, want := range []string{"1200×6000", "400×2000", "(3·x, 3·y)"} {
		if !strings.Contains(note.Text, want) {
			t.Errorf("note %q does not say %q", note.Text, want)
		}
	}
}

// An image within the limits passes as it came, and so does content without images.
func TestFitMediaLeavesImagesWithinTheLimits(t *testing.T) {
	for _, content := range [][]mcp.Content{
		{mcp.NewImageContent(pngData(t, stripes(2000, 1500)), "image/png"), mcp.NewAudioContent(strings.Repeat("A", 8<<20), "audio/wav")},
		{mcp.NewTextContent("text")},
	} {
		out, changed := fitMedia(t.Context(), content)
		if changed || len(out) != len(content) {
			t.Errorf("%.40v: changed %v, %d blocks; want it as it came", content, changed, len(out))
		}
	}
}

// An image whose media type is not what its data is goes with its data's type: the API refuses
// "image/jpeg" on a PNG's data. Nothing else changes, and no note is needed.
func TestFitMediaNamesTheDataType(t *testing.T) {
	data := pngData(t, stripes(100, 100))
	out, changed := fitMedia(t.Context(), []mcp.Content{mcp.NewImageContent(data, "image/jpeg")})
	if !changed || len(out) != 1 {
		t.Fatalf("changed %v, %d blocks; want the image alone", changed, len(out))
	}
	if img, ok := out[0].(mcp.ImageContent); !ok || img.MIMEType != "image/png" || img.Data != data {
		t.Errorf("%.80v; want the same data as image/png", out[0])
	}
}

// An SVG image reaches the model as its source: the API takes no SVG image, and SVG is text.
func TestFitMediaGivesSVGAsText(t *testing.T) {
	svg := `<svg xmlns="http://www.w3.org/2000/svg"><text>build passed</text></svg>`
	out, changed := fitMedia(t.Context(), []mcp.Content{mcp.NewImageContent(base64.StdEncoding.EncodeToString([]byte(svg)), "image/svg+xml")})
	if !changed || len(out) != 1 {
		t.Fatalf("changed %v, %d blocks; want one text block", changed, len(out))
	}
	text, ok := out[0].(mcp.TextContent)
	if !ok || !strings.HasSuffix(text.Text, "\n"+svg) || !strings.Contains(text.Text, "takes no SVG image") {
		t.Errorf("%.300v; want a note and the source", out[0])
	}
	// Past maxSVGText of source in one result, a note alone.
	big := strings.Repeat("<g/>", maxSVGText/4)
	out, _ = fitMedia(t.Context(), []mcp.Content{
		mcp.NewImageContent(base64.StdEncoding.EncodeToString([]byte(svg)), "image/svg+xml"),
		mcp.NewImageContent(base64.StdEncoding.EncodeToString([]byte(big)), "image/svg+xml"),
	})
	if len(out) != 2 || !strings.HasSuffix(out[0].(mcp.TextContent).Text, svg) {
		t.Fatalf("two SVGs: %.200v", out)
	}
	if note := out[1].(mcp.TextContent).Text; strings.Contains(note, "<g/>") || !strings.Contains(note, "100 KB of SVG text, is more than mcpctl passes from one result (100 KB)") {
		t.Errorf("an SVG past the bound: %.300q", note)
	}
	// As a resource's blob: text contents of the source, under its URI and type.
	res := mcp.BlobResourceContents{URI: "file:///logo.svg", MIMEType: "image/svg+xml", Blob: base64.StdEncoding.EncodeToString([]byte(svg))}
	got, _ := fitResourceImages(t.Context(), []mcp.ResourceContents{res}, askServer)
	if tr, ok := got[0].(mcp.TextResourceContents); !ok || tr.Text != svg || tr.URI != res.URI || tr.MIMEType != "image/svg+xml" {
		t.Errorf("the SVG resource: %+v", got[0])
	}
}

// A JPEG photo stays a JPEG; a wide image is bounded by its width.
func TestFitMediaScalesAWideJPEG(t *testing.T) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, stripes(5000, 1000), nil); err != nil {
		t.Fatal(err)
	}
	out, _ := fitMedia(t.Context(), []mcp.Content{mcp.NewImageContent(base64.StdEncoding.EncodeToString(buf.Bytes()), "image/jpeg")})
	if cfg, format := decodeBlock(t, out[0]); cfg.Width != 2000 || cfg.Height != 400 || format != "jpeg" {
		t.Errorf("scaled to %d×%d %s, want 2000×400 jpeg", cfg.Width, cfg.Height, format)
	}
}

// An image within the sides but over 5 MB of data (a photo saved as PNG) is re-encoded, not
// said to be scaled.
func TestFitMediaReencodesAHeavyImage(t *testing.T) {
	data := pngData(t, noise(1200, 1200, true))
	if len(data) <= maxImageData {
		t.Fatalf("the test image has %d bytes of data, want over %d", len(data), maxImageData)
	}
	out, _ := fitMedia(t.Context(), []mcp.Content{mcp.NewImageContent(data, "image/png")})
	if cfg, format := decodeBlock(t, out[0]); cfg.Width != 1200 || cfg.Height != 1200 || format != "jpeg" {
		t.Errorf("%d×%d %s, want 1200×1200 jpeg", cfg.Width, cfg.Height, format)
	}
	if note, _ := out[1].(mcp.TextContent); !strings.Contains(note.Text, "re-encoded the image above (1200×1200 pixels) as image/jpeg") || strings.Contains(note.Text, "scaled") {
		t.Errorf("note %q", note.Text)
	}
}

// headerOnlyPNG is a PNG whose header says w×h over a 1×1 image's data: DecodeConfig reads it,
// and no one need allocate the pixels it claims.
func headerOnlyPNG(t *testing.T, w, h uint32) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	// The signature (8 bytes), then IHDR: length (4), type (4), width, height, … and a CRC over
	// the type and the 13 bytes of data.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return base64.StdEncoding.EncodeToString(b)
}

// What cannot be fitted is left out, and the note in its place says what it was, why it is
// not there, and what to ask for instead.
func TestFitMediaLeavesOutWhatItCannotFit(t *testing.T) {
	for name, c := range map[string]struct {
		img  mcp.ImageContent
		says []string
	}{
		"too many pixels to decode": {mcp.NewImageContent(headerOnlyPNG(t, 20000, 20000), "image/png"),
			[]string{"image/png, 20000×20000 pixels", "too large for mcpctl to scale", "Ask the tool for a smaller image"}},
		"claims a size its data lacks": {mcp.NewImageContent(headerOnlyPNG(t, 3000, 3000), "image/png"),
			[]string{"3000×3000 pixels", "could not be decoded"}},
		// The API refuses a request holding an image it cannot read, small or not, and every
		// later request of the conversation with it (claude-code #58330, #15807).
		"a format the API does not take": {mcp.NewImageContent(base64.StdEncoding.EncodeToString([]byte("II*\x00 a TIFF")), "image/tiff"),
			[]string{"image/tiff, 16 bytes of data", "takes only PNG, JPEG, GIF and WebP images", "cannot read its data as any of those", "Ask the tool for a PNG or JPEG"}},
		"not base64": {mcp.NewImageContent("not base64!", "image/png"),
			[]string{"image/png, 11 bytes", "its data is not valid base64"}},
		"no media type, no image": {mcp.NewImageContent(base64.StdEncoding.EncodeToString([]byte("hello")), ""),
			[]string{"no media type", "cannot read its data as any of those"}},
	} {
		out, changed := fitMedia(t.Context(), []mcp.Content{c.img})
		if !changed || len(out) != 1 {
			t.Errorf("%s: changed %v, %d blocks; want the note alone", name, changed, len(out))
			continue
		}
		note, ok := out[0].(mcp.TextContent)
		if !ok {
			t.Errorf("%s: %T in the image's place, want a note", name, out[0])
			continue
		}
		for _, want := range c.says {
			if !strings.Contains(note.Text, want) {
				t.Errorf("%s: note %q does not say %q", name, note.Text, want)
			}
		}
	}
}

// A prompt's image messages are fitted as a tool's images are: a scaled image stays a message of
// its role with its note in a text message after it, one left out becomes a text message of its
// role, and the other messages pass as they came.
func TestFitPromptImages(t *testing.T) {
	intro := mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("look at these"))
	small := mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(pngData(t, stripes(100, 100)), "image/png"))
	msgs := []mcp.PromptMessage{
		intro,
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(pngData(t, stripes(1200, 6000)), "image/png")),
		mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewImageContent(headerOnlyPNG(t, 20000, 20000), "image/png")),
		small,
	}
	out, changed := fitPromptImages(t.Context(), msgs)
	if !changed || len(out) != 5 {
		t.Fatalf("changed %v, %d messages; want the text, the scaled image, its note, the note for the one left out and the small image", changed, len(out))
	}
	if !reflect.DeepEqual(out[0], intro) || !reflect.DeepEqual(out[4], small) {
		t.Errorf("a message that needed no fitting changed: %v, %v", out[0], out[4])
	}
	if cfg, _ := decodeBlock(t, out[1].Content); out[1].Role != mcp.RoleUser || cfg.Width != 400 || cfg.Height != 2000 {
		t.Errorf("the scaled image: %s %d×%d, want user 400×2000", out[1].Role, cfg.Width, cfg.Height)
	}
	if note, _ := out[2].Content.(mcp.TextContent); out[2].Role != mcp.RoleUser || !strings.Contains(note.Text, "scaled the image above from 1200×6000") {
		t.Errorf("the note after it: %s %q, want the user's, saying it was scaled", out[2].Role, note.Text)
	}
	note, _ := out[3].Content.(mcp.TextContent)
	if out[3].Role != mcp.RoleAssistant || !strings.Contains(note.Text, "left out an image here") || !strings.Contains(note.Text, "tool that gives a smaller image") ||
		strings.Contains(note.Text, "Ask the tool") {
		t.Errorf("the one left out: %s %q, want the assistant's note saying to use a tool of the server, if it has one", out[3].Role, note.Text)
	}
	if msgs[1].Content.(mcp.ImageContent).MIMEType != "image/png" || len(msgs) != 4 {
		t.Error("the upstream's messages were changed in place")
	}

	plain := []mcp.PromptMessage{intro, small}
	if out, changed := fitPromptImages(t.Context(), plain); changed || len(out) != 2 {
		t.Errorf("messages within the limits: changed %v, %d messages; want them as they came", changed, len(out))
	}
}

// A resource's image blob is scaled in place under its URI; one that cannot be fitted becomes
// text under the same URI; other blobs and texts pass as they came.
func TestFitResourceImages(t *testing.T) {
	bin := mcp.BlobResourceContents{URI: "test://a/data", MIMEType: "application/octet-stream", Blob: base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 8<<20))}
	text := mcp.TextResourceContents{URI: "test://a/readme", Text: "read me"}
	contents := []mcp.ResourceContents{
		mcp.BlobResourceContents{URI: "test://a/shot", MIMEType: "image/png", Blob: pngData(t, stripes(1200, 6000))},
		bin,
		mcp.BlobResourceContents{URI: "test://a/huge", MIMEType: "image/png", Blob: headerOnlyPNG(t, 20000, 20000)},
		text,
	}
	out, notes := fitResourceImages(t.Context(), contents, askServer)
	if len(out) != 4 || len(notes) != 2 {
		t.Fatalf("%d contents, %d notes; want 4 and 2", len(out), len(notes))
	}
	shot, ok := out[0].(mcp.BlobResourceContents)
	if !ok || shot.URI != "test://a/shot" {
		t.Fatalf("the screenshot: %T %v, want a blob under its URI", out[0], out[0])
	}
	if cfg, _ := decodeBlock(t, mcp.NewImageContent(shot.Blob, shot.MIMEType)); cfg.Width != 400 || cfg.Height != 2000 {
		t.Errorf("the screenshot is %d×%d, want 400×2000", cfg.Width, cfg.Height)
	}
	if !reflect.DeepEqual(out[1], bin) || !reflect.DeepEqual(out[3], text) {
		t.Error("a blob that is no image, or a text, changed")
	}
	huge, ok := out[2].(mcp.TextResourceContents)
	if !ok || huge.URI != "test://a/huge" || !strings.Contains(huge.Text, "20000×20000 pixels") {
		t.Errorf("the image that cannot be fitted: %T %v, want text under its URI saying what it was", out[2], out[2])
	}
	if contents[0].(mcp.BlobResourceContents).Blob == shot.Blob {
		t.Error("the upstream's contents were changed in place")
	}
	if out, notes := fitResourceImages(t.Context(), contents[1:2], askServer); len(notes) != 0 || !reflect.DeepEqual(out[0], bin) {
		t.Errorf("a blob that is no image: %d notes, want it as it came", len(notes))
	}
}

// A copy of an image in structuredContent, as itself or as a data: URL, becomes a short mark;
// the rest of the structured output stays.
func TestDropMediaCopies(t *testing.T) {
	img := stripes(300, 300)
	for i := range img.Pix {
		img.Pix[i] ^= uint8(i * 7919 >> 3) // noise: a PNG of some KB, as a real picture is
	}
	data := pngData(t, img)
	structured := `{"width":300,"image":"` + data + `","preview":{"url":"data:image/png;base64,` + data + `"},"name":"shot"}`
	res := &mcp.CallToolResult{
		Content:              []mcp.Content{mcp.NewTextContent("a shot"), mcp.NewImageContent(data, "image/png")},
		RawStructuredContent: json.RawMessage(structured),
	}
	if !dropMediaCopies(res) {
		t.Fatal("no copy found")
	}
	wire, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		StructuredContent struct {
			Width   int    `json:"width"`
			Image   string `json:"image"`
			Preview struct {
				URL string `json:"url"`
			} `json:"preview"`
			Name string `json:"name"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(wire, &got); err != nil {
		t.Fatal(err)
	}
	sc := got.StructuredContent
	mark := "[image data (image/png, "
	if !strings.HasPrefix(sc.Image, mark) || !strings.HasPrefix(sc.Preview.URL, mark) || sc.Width != 300 || sc.Name != "shot" {
		t.Errorf("structuredContent %+v; want both copies marked, the rest kept", sc)
	}
	if n := strings.Count(string(wire), data); n != 1 {
		t.Errorf("the image's data is %d times in the result, want once (its block)", n)
	}

	// Without a copy, structuredContent stays as it came.
	plain := &mcp.CallToolResult{Content: []mcp.Content{mcp.NewImageContent(data, "image/png")}, RawStructuredContent: json.RawMessage(`{"name":"shot"}`)}
	if dropMediaCopies(plain) || string(plain.RawStructuredContent) != `{"name":"shot"}` {
		t.Errorf("a result without copies changed: %s", plain.RawStructuredContent)
	}
}

func BenchmarkFitMediaScreenshot(b *testing.B) {
	content := []mcp.Content{mcp.NewImageContent(pngData(b, stripes(1280, 9000)), "image/png")}
	b.ResetTimer()
	for b.Loop() {
		fitMedia(b.Context(), content)
	}
}

// What was transparent is white in a JPEG, not black.
func TestEncodeImageFlattensOnWhite(t *testing.T) {
	data, mime, err := encodeImage(image.NewNRGBA(image.Rect(0, 0, 8, 8)), "webp") // all transparent
	if err != nil || mime != "image/jpeg" {
		t.Fatalf("%v %s", err, mime)
	}
	raw, _ := base64.StdEncoding.DecodeString(data)
	img, err := jpeg.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := img.At(4, 4).RGBA(); r>>8 < 250 || g>>8 < 250 || b>>8 < 250 {
		t.Errorf("a transparent pixel became %d,%d,%d, want white", r>>8, g>>8, b>>8)
	}
}

// An image a tool embeds as a resource is fitted as an image block is: scaled in place with a
// note after it, or, when it cannot be, its resource becomes the note under the same URI.
func TestFitMediaFitsEmbeddedImages(t *testing.T) {
	shot := mcp.EmbeddedResource{Type: "resource", Resource: mcp.BlobResourceContents{URI: "test://a/shot", MIMEType: "image/png", Blob: pngData(t, stripes(300, 3000))}}
	huge := mcp.EmbeddedResource{Type: "resource", Resource: mcp.BlobResourceContents{URI: "test://a/huge", MIMEType: "image/png", Blob: headerOnlyPNG(t, 20000, 20000)}}
	doc := mcp.EmbeddedResource{Type: "resource", Resource: mcp.TextResourceContents{URI: "test://a/doc", Text: "a document"}}
	out, changed := fitMedia(t.Context(), []mcp.Content{shot, doc, huge})
	if !changed || len(out) != 4 {
		t.Fatalf("changed %v, %d blocks; want the screenshot, its note, the document and the note for the huge one", changed, len(out))
	}
	scaled, ok := out[0].(mcp.EmbeddedResource).Resource.(mcp.BlobResourceContents)
	if !ok || scaled.URI != "test://a/shot" {
		t.Fatalf("the screenshot: %#v, want a blob under its URI", out[0])
	}
	if cfg, _ := decodeBlock(t, mcp.NewImageContent(scaled.Blob, scaled.MIMEType)); cfg.Width != 200 || cfg.Height != 2000 {
		t.Errorf("the screenshot is %d×%d, want 200×2000", cfg.Width, cfg.Height)
	}
	if note, _ := blockText(out[1]); !strings.Contains(note, "300×3000") {
		t.Errorf("the note after it %q does not give the original size", note)
	}
	if !reflect.DeepEqual(out[2], doc) {
		t.Errorf("the embedded document changed: %#v", out[2])
	}
	left, ok := out[3].(mcp.EmbeddedResource).Resource.(mcp.TextResourceContents)
	if !ok || left.URI != "test://a/huge" || !strings.Contains(left.Text, "20000×20000 pixels") || !strings.Contains(left.Text, askTool.one) {
		t.Errorf("the image that cannot be fitted: %#v, want text under its URI saying what it was and what to ask the tool", out[3])
	}
}

// lower sets *v to n for the test: the bounds are sized for real results, the tests' images are
// small.
func lower(t *testing.T, v *int, n int) {
	t.Helper()
	old := *v
	*v = n
	t.Cleanup(func() { *v = old })
}

// A result's images past maxResultImages, or past maxResultImageData of data, are left out, one
// note in place of the first saying how many and what to ask for; every image after the first
// left out is too, however small, so the note can say "from here on".
func TestFitMediaBoundsAResultsImages(t *testing.T) {
	small := mcp.NewImageContent(pngData(t, stripes(16, 16)), "image/png")
	content := []mcp.Content{mcp.NewTextContent("the shots")}
	for range 25 {
		content = append(content, small)
	}
	content = append(content, mcp.NewTextContent("done"))
	out, changed := fitMedia(t.Context(), content)
	if !changed || len(out) != 1+20+1+1 {
		t.Fatalf("changed %v, %d blocks; want the text, 20 images, the note and the text after", changed, len(out))
	}
	for i, c := range out[1:21] {
		if !reflect.DeepEqual(c, small) {
			t.Fatalf("block %d is %T, want the image as it came", i+1, c)
		}
	}
	note, _ := out[21].(mcp.TextContent)
	for _, want := range []string{"left out the 5 images from here on", "image/png", "at most 20 images", askTool.many} {
		if !strings.Contains(note.Text, want) {
			t.Errorf("note %q does not say %q", note.Text, want)
		}
	}
	if text, _ := out[22].(mcp.TextContent); text.Text != "done" {
		t.Errorf("the text after the images: %v", out[22])
	}

	// The data bound counts images as they are passed, a scaled one by its scaled data.
	big := mcp.NewImageContent(pngData(t, stripes(300, 3000)), "image/png")
	lower(t, &maxResultImageData, 3*len(small.Data))
	out, _ = fitMedia(t.Context(), []mcp.Content{small, small, big, small})
	if len(out) != 3 || !reflect.DeepEqual(out[1], small) {
		t.Fatalf("%d blocks; want two images and the note", len(out))
	}
	note, _ = out[2].(mcp.TextContent)
	if !strings.Contains(note.Text, "left out the 2 images from here on") || !strings.Contains(note.Text, "had 2 images") {
		t.Errorf("note %q; want the 2 images from the large one on left out, after 2 passed", note.Text)
	}
}

// A prompt's and a resource's images are bounded as a tool's are: the note takes the place, and
// the role or URI, of the first image left out.
func TestFitPromptAndResourceImagesAreBounded(t *testing.T) {
	lower(t, &maxResultImages, 1)
	img := pngData(t, stripes(16, 16))
	msgs := []mcp.PromptMessage{
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(img, "image/png")),
		mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewImageContent(img, "image/png")),
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("and")),
		mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(img, "image/png")),
	}
	out, changed := fitPromptImages(t.Context(), msgs)
	if !changed || len(out) != 3 || !reflect.DeepEqual(out[0], msgs[0]) || !reflect.DeepEqual(out[2], msgs[2]) {
		t.Fatalf("changed %v, %d messages; want the first image, the note and the text", changed, len(out))
	}
	if note, _ := out[1].Content.(mcp.TextContent); out[1].Role != mcp.RoleAssistant || !strings.Contains(note.Text, "left out the 2 images from here on") ||
		!strings.Contains(note.Text, askServer.many) {
		t.Errorf("the note: %s %q; want the assistant's, saying 2 images were left out", out[1].Role, note.Text)
	}

	contents := []mcp.ResourceContents{
		mcp.BlobResourceContents{URI: "test://a/1", MIMEType: "image/png", Blob: img},
		mcp.BlobResourceContents{URI: "test://a/2", MIMEType: "image/png", Blob: img},
		mcp.BlobResourceContents{URI: "test://a/3", MIMEType: "image/png", Blob: img},
	}
	got, notes := fitResourceImages(t.Context(), contents, askServer)
	if len(got) != 2 || !reflect.DeepEqual(got[0], contents[0]) || len(notes) != 1 {
		t.Fatalf("%d contents, %d notes; want the first image and the note, and the note for the log", len(got), len(notes))
	}
	if left, ok := got[1].(mcp.TextResourceContents); !ok || left.URI != "test://a/2" || left.Text != notes[0] || !strings.Contains(left.Text, "left out the 2 images") {
		t.Errorf("in place of the second image: %#v; want the note under its URI", got[1])
	}
	if _, ok := contents[1].(mcp.BlobResourceContents); !ok || len(contents) != 3 {
		t.Error("the upstream's contents were changed in place")
	}
}

// noise is a w×h image of random pixels, opaque or half transparent: what neither PNG nor JPEG
// compresses well, and JPEG far less badly.
func noise(w, h int, opaque bool) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	x := uint32(1)
	for i := range img.Pix {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		img.Pix[i] = uint8(x)
		if i%4 == 3 {
			img.Pix[i] = 128
			if opaque {
				img.Pix[i] = 255
			}
		}
	}
	return img
}

// A scaled PNG that is a photo comes back as the smaller of its PNG and its JPEG; a transparent
// one stays PNG, which its JPEG would not be.
func TestFitMediaPicksTheSmallerEncoding(t *testing.T) {
	for _, c := range []struct {
		opaque bool
		want   string
	}{{true, "jpeg"}, {false, "png"}} {
		data := pngData(t, noise(2100, 60, c.opaque))
		out, _ := fitMedia(t.Context(), []mcp.Content{mcp.NewImageContent(data, "image/png")})
		if cfg, format := decodeBlock(t, out[0]); cfg.Width != 2000 || format != c.want {
			t.Errorf("opaque %v: %d wide, %s; want 2000 wide, %s", c.opaque, cfg.Width, format, c.want)
		}
		if got := len(out[0].(mcp.ImageContent).Data); c.opaque && got > len(data)/2 {
			t.Errorf("the scaled photo has %s of data, its PNG %s; want the JPEG's fraction", sizeOf(got), sizeOf(len(data)))
		}
	}
}

// decodeMemory bounds the scalings of concurrent calls together: a call waits while others hold
// it, and gives up, the image left out with a note, when its request ends.
func TestFitImageWaitsForDecodeMemory(t *testing.T) {
	old := decodeMemory
	decodeMemory = newWeighted(1 << 30)
	t.Cleanup(func() { decodeMemory = old })
	if err := decodeMemory.acquire(t.Context(), 1<<30); err != nil {
		t.Fatal(err)
	}
	shot := mcp.NewImageContent(pngData(t, stripes(2100, 100)), "image/png")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan []mcp.Content)
	go func() {
		out, _ := fitMedia(ctx, []mcp.Content{shot})
		done <- out
	}()
	waitFor(t, func() bool { return decodeMemory.waiting() == 1 })
	cancel()
	out := <-done
	if note, _ := out[0].(mcp.TextContent); len(out) != 1 || !strings.Contains(note.Text, "request ended while it waited") {
		t.Errorf("%d blocks, %v; want the note alone, saying the request ended", len(out), out[0])
	}

	// Released, the next call scales.
	decodeMemory.release(1 << 30)
	if out, _ := fitMedia(t.Context(), []mcp.Content{shot}); len(out) != 2 {
		t.Errorf("%d blocks; want the scaled image and its note", len(out))
	}
}

// waitFor waits until cond holds, failing the test after 10 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("the condition never held")
		}
		runtime.Gosched()
	}
}

// Takers wait in order until their units are free; one larger than the whole runs alone; one
// whose context ends takes nothing and stops holding up those behind it.
func TestWeighted(t *testing.T) {
	s := newWeighted(10)
	if err := s.acquire(t.Context(), 8); err != nil {
		t.Fatal(err)
	}
	big := make(chan error)
	go func() { big <- s.acquire(t.Context(), 100) }() // needs all 10, after the 8 are back
	waitFor(t, func() bool { return s.waiting() == 1 })
	ctx, cancel := context.WithCancel(t.Context())
	small := make(chan error)
	go func() { small <- s.acquire(ctx, 1) }() // would fit, but waits behind big
	waitFor(t, func() bool { return s.waiting() == 2 })
	cancel()
	if err := <-small; err == nil {
		t.Error("a taker whose context ended got its units")
	}
	s.release(8)
	if err := <-big; err != nil {
		t.Fatal(err)
	}
	if s.used != 10 || s.waiting() != 0 {
		t.Errorf("%d units used, %d waiting; want 10 and none", s.used, s.waiting())
	}
	s.release(100)
	if s.used != 0 {
		t.Errorf("%d units used after all came back", s.used)
	}
}

// scaleCost covers what scaling really allocates: for a 16-bit PNG, 8 bytes a pixel and
// Catmull-Rom's buffer, which dwarfs the image (the estimate once counted the image alone); for
// a progressive JPEG, the coefficients it keeps until its last scan as well (once left out).
func TestScaleCostCoversWhatScalingTakes(t *testing.T) {
	wide := image.NewRGBA64(image.Rect(0, 0, 2400, 600))
	for y := range 600 {
		for x := range 2400 {
			wide.SetRGBA64(x, y, color.RGBA64{R: uint16(x * 27), G: uint16(y * 109), B: 0x8000, A: 0xffff})
		}
	}
	// 2400×600 too, made by jpegtran -progressive from image/jpeg's encoding of a gradient, and
	// by cjpeg -rgb [-progressive] (libjpeg-turbo) from a gradient: image/jpeg encodes neither.
	for _, c := range []struct {
		name string
		raw  []byte
		mime string
	}{
		{"16-bit PNG", pngBytes(t, wide), "image/png"},
		{"progressive JPEG", readFile(t, "testdata/progressive.jpg"), "image/jpeg"},
		{"RGB JPEG", readFile(t, "testdata/rgb-baseline.jpg"), "image/jpeg"},
		{"progressive RGB JPEG", readFile(t, "testdata/rgb-progressive.jpg"), "image/jpeg"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, format, err := image.DecodeConfig(bytes.NewReader(c.raw))
			if err != nil {
				t.Fatal(err)
			}
			cost := scaleCost(cfg, format, c.raw, 2000, 500)
			data := base64.StdEncoding.EncodeToString(c.raw)
			// TotalAlloc counts every goroutine's allocations, and another's can only add to a
			// run's: the smaller of two runs is the nearer.
			took := int64(math.MaxInt64)
			for range 2 {
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				fitted, _ := fitImage(t.Context(), mcp.NewImageContent(data, c.mime), askTool)
				runtime.ReadMemStats(&after)
				if fitted == nil {
					t.Fatal("not scaled")
				}
				// Less what is not the decoding's or scaling's: the data decoded from base64, and
				// the encodings with their base64.
				took = min(took, int64(after.TotalAlloc-before.TotalAlloc)-int64(len(c.raw))-3*int64(len(fitted.Data)))
			}
			if took > cost || cost > 2*took {
				t.Errorf("scaling took %s, scaleCost says %s; want it covered, and not twice over", sizeOf(int(took)), sizeOf(int(cost)))
			}
		})
	}
}

func TestProgressiveJPEG(t *testing.T) {
	progressive := readFile(t, "testdata/progressive.jpg")
	var baseline bytes.Buffer
	if err := jpeg.Encode(&baseline, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		raw  []byte
		want bool
	}{
		{"progressive", progressive, true},
		{"baseline", baseline.Bytes(), false},
		{"PNG", pngBytes(t, image.NewGray(image.Rect(0, 0, 8, 8))), false},
		{"cut before its frame", progressive[:20], false},
		{"RGB, progressive", readFile(t, "testdata/rgb-progressive.jpg"), true},
		{"RGB, baseline", readFile(t, "testdata/rgb-baseline.jpg"), false},
		{"a marker's length past the end", []byte{0xff, 0xd8, 0xff, 0xe0, 0xff, 0xff}, false},
		{"empty", nil, false},
		// What image/jpeg skips between markers must not hide the frame.
		{"a stray byte", afterSOI(progressive, 0x42), true},
		{"FF 00", afterSOI(progressive, 0xff, 0x00), true},
		{"a restart marker", afterSOI(progressive, 0xff, 0xd3), true},
		{"fill", afterSOI(progressive, 0xff, 0xff, 0xff), true},
	} {
		if got := progressiveJPEG(c.raw); got != c.want {
			t.Errorf("%s: progressiveJPEG = %v, want %v", c.name, got, c.want)
		}
		// Each progressive case is a file image/jpeg reads, so it must be charged as one.
		if _, err := jpeg.DecodeConfig(bytes.NewReader(c.raw)); c.want && err != nil {
			t.Errorf("%s: image/jpeg does not decode it (%v); the case tests nothing", c.name, err)
		}
	}
}

// afterSOI is jpg with extra inserted after its start-of-image marker.
func afterSOI(jpg []byte, extra ...byte) []byte {
	return append(append(append([]byte{}, jpg[:2]...), extra...), jpg[2:]...)
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
