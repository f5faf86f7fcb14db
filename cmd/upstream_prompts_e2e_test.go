package cmd

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// promptExtras give a fake upstream (MCPCTL_UPSTREAM_PROMPTS) what the tests of its prompts and
// resources need: a prompt whose argument completes and a template whose variable completes,
// as server-everything's do (with the value "plain" the server serves them but declares no
// completions), and a prompt and resources holding images over the Claude API's limits.
func promptExtras(s *server.MCPServer, name, mode string) {
	server.WithPromptCapabilities(true)(s)
	if mode != "plain" {
		server.WithCompletions()(s)
		server.WithPromptCompletionProvider(colourCompleter{})(s)
		server.WithResourceCompletionProvider(colourCompleter{})(s)
	}
	s.AddPrompt(mcp.NewPrompt("paint", mcp.WithArgument("colour", mcp.RequiredArgument())),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("paint", []mcp.PromptMessage{mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("paint it "+req.Params.Arguments["colour"]))}), nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://"+name+"/colour/{colour}", "colour"),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: req.Params.URI}}, nil
		})
	s.AddPrompt(mcp.NewPrompt("shots", mcp.WithPromptDescription("A full-page screenshot, one too large to scale, and a small one.")),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("shots", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("compare these")),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(screenshotData(), "image/png")),
				mcp.NewPromptMessage(mcp.RoleAssistant, mcp.NewImageContent(headerOnlyPNG(20000, 20000), "image/png")),
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewImageContent(headerOnlyPNG(1, 1), "image/png")),
			}), nil
		})
	for doc, blob := range map[string]func() string{
		"shot.png": screenshotData,
		"huge.png": func() string { return headerOnlyPNG(20000, 20000) },
		"data.bin": func() string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 6<<20)) },
	} {
		mime := "image/png"
		if strings.HasSuffix(doc, ".bin") {
			mime = "application/octet-stream"
		}
		uri := "test://" + name + "/" + doc
		s.AddResource(mcp.NewResource(uri, doc, mcp.WithMIMEType(mime)),
			func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
				return []mcp.ResourceContents{mcp.BlobResourceContents{URI: uri, MIMEType: mime, Blob: blob()}}, nil
			})
	}
}

// colourCompleter completes paint's colour, and the colour template's, by prefix, under the
// server's own names: a completion asked by mcpctl's served name finds none.
type colourCompleter struct{}

func (colourCompleter) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != "paint" || arg.Name != "colour" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return colours(arg.Value), nil
}

func (colourCompleter) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if !strings.HasSuffix(uri, "/colour/{colour}") || arg.Name != "colour" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return colours(arg.Value), nil
}

func colours(typed string) *mcp.Completion {
	out := []string{}
	for _, c := range []string{"red", "green", "grey", "blue"} {
		if strings.HasPrefix(c, typed) {
			out = append(out, c)
		}
	}
	return &mcp.Completion{Values: out}
}

// headerOnlyPNG is a PNG whose header says w×h over a 1×1 image's data: what a server that
// claims a huge image sends, without anyone allocating its pixels.
func headerOnlyPNG(w, h uint32) string {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 1, 1))); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	// The signature (8 bytes), then IHDR: length, type, width, height, … and a CRC over the
	// type and the 13 bytes of data.
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return base64.StdEncoding.EncodeToString(b)
}

// complete asks s to complete an argument of ref.
func complete(tb testing.TB, s *session, ref any, arg, value string) []string {
	tb.Helper()
	var req mcp.CompleteRequest
	req.Params.Ref = ref
	req.Params.Argument = mcp.CompleteArgument{Name: arg, Value: value}
	res, err := s.Complete(context.Background(), req)
	if err != nil {
		tb.Fatalf("completion/complete %v %s=%q: %v", ref, arg, value, err)
	}
	if res.Completion.Values == nil {
		tb.Fatalf("completion/complete %v: values is null, want an array", ref)
	}
	return res.Completion.Values
}

// A project server's prompt argument and template variable complete as the server completes
// them (they answered [] though mcpctl declares completions); a server without completions,
// and one that is down, answer [] and no error, as a client asks on every keystroke.
func TestUpstreamCompletion(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	dead := filepath.Join(t.TempDir(), "dead")
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nservers:\n"+
		"  db:\n    command: %[1]q\n    env: {MCPCTL_BE_UPSTREAM: db, MCPCTL_UPSTREAM_PROMPTS: \"1\", MCPCTL_UPSTREAM_EXTRAS: \"1\", MCPCTL_UPSTREAM_DEAD: %[2]q}\n    timeoutMs: 20000\n"+
		"  pl:\n    command: %[1]q\n    env: {MCPCTL_BE_UPSTREAM: pl, MCPCTL_UPSTREAM_PROMPTS: plain}\n    timeoutMs: 20000\n", os.Args[0], dead))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	callWhenUp(t, s, "db__echo")
	callWhenUp(t, s, "pl__echo")
	eventually(t, 20*time.Second, "db's and pl's prompts are listed", func() bool {
		names := map[string]bool{}
		for _, p := range s.allPrompts(t) {
			names[p.Name] = true
		}
		return names["db__paint"] && names["pl__paint"]
	})

	prompt := func(name string) mcp.PromptReference { return mcp.PromptReference{Type: "ref/prompt", Name: name} }
	if got := complete(t, s, prompt("db__paint"), "colour", "gr"); !slices.Equal(got, []string{"green", "grey"}) {
		t.Errorf("db__paint's colour from gr: %q, want green and grey, as db completes it", got)
	}
	tmpl := mcp.ResourceReference{Type: "ref/resource", URI: "test://db/colour/{colour}"}
	if got := complete(t, s, tmpl, "colour", "b"); !slices.Equal(got, []string{"blue"}) {
		t.Errorf("db's colour template from b: %q, want blue", got)
	}
	if got := complete(t, s, prompt("pl__paint"), "colour", "gr"); len(got) != 0 {
		t.Errorf("pl__paint, of a server without completions: %q, want none", got)
	}
	// Library prompts and mcpctl's own templates are not sent to the servers.
	if got := complete(t, s, prompt("paint"), "colour", "gr"); len(got) != 0 {
		t.Errorf("a name of no server's: %q, want none", got)
	}

	res, err := callTool(context.Background(), s.Client, "db__die", map[string]any{}, nil)
	if err != nil {
		t.Fatalf("db__die: %v", err)
	}
	checkResult(t, "db__die", res)
	if got := complete(t, s, prompt("db__paint"), "colour", "gr"); len(got) != 0 {
		t.Errorf("db__paint while db is down: %q, want none", got)
	}
	if got := complete(t, s, tmpl, "colour", "b"); len(got) != 0 {
		t.Errorf("db's template while db is down: %q, want none", got)
	}
}

// Images in a project server's prompts and resources are fitted to the Claude API's limits as
// its tools' are (they passed as they came, and one image over them ends the conversation).
func TestUpstreamPromptAndResourceImagesFitTheAPI(t *testing.T) {
	s := serveDB(t, `, MCPCTL_UPSTREAM_PROMPTS: "1"`, "    timeoutMs: 20000\n")
	callWhenUp(t, s, "db__echo")
	var res *mcp.GetPromptResult
	eventually(t, 20*time.Second, "db__shots answers", func() bool {
		var err error
		res, err = s.GetPrompt(context.Background(), getPromptRequest("db__shots", nil))
		return err == nil
	})
	var roles []string
	for _, m := range res.Messages {
		kind := "text"
		if _, ok := m.Content.(mcp.ImageContent); ok {
			kind = "image"
		}
		roles = append(roles, string(m.Role)+" "+kind)
	}
	if want := []string{"user text", "user image", "user text", "assistant text", "user image"}; !slices.Equal(roles, want) {
		t.Fatalf("db__shots: messages %q, want %q: the scaled screenshot and its note, the huge one's note in its place, the small one", roles, want)
	}
	img := res.Messages[1].Content.(mcp.ImageContent)
	if cfg := imageSize(t, img.Data, img.MIMEType); cfg.Width != 266 || cfg.Height != 2000 {
		t.Errorf("the screenshot is %d×%d, want 266×2000", cfg.Width, cfg.Height)
	}
	if note := res.Messages[2].Content.(mcp.TextContent).Text; !strings.Contains(note, "from 400×3000 pixels to 266×2000") {
		t.Errorf("the note after the screenshot: %q, want its original size", note)
	}
	if note := res.Messages[3].Content.(mcp.TextContent).Text; !strings.Contains(note, "left out an image here (image/png, 20000×20000 pixels") {
		t.Errorf("the huge image's note: %q, want what it was", note)
	}

	read := func(uri string) mcp.ResourceContents {
		t.Helper()
		var req mcp.ReadResourceRequest
		req.Params.URI = uri
		r, err := s.ReadResource(context.Background(), req)
		if err != nil || len(r.Contents) != 1 {
			t.Fatalf("read %s: %v, %v; want one content", uri, r, err)
		}
		return r.Contents[0]
	}
	shot, ok := read("test://db/shot.png").(mcp.BlobResourceContents)
	if !ok || shot.URI != "test://db/shot.png" {
		t.Fatalf("test://db/shot.png: %T %s %s, want an image blob under its URI", shot, shot.URI, shot.MIMEType)
	}
	if cfg := imageSize(t, shot.Blob, shot.MIMEType); cfg.Width != 266 || cfg.Height != 2000 {
		t.Errorf("test://db/shot.png is %d×%d, want 266×2000", cfg.Width, cfg.Height)
	}
	huge, ok := read("test://db/huge.png").(mcp.TextResourceContents)
	if !ok || huge.URI != "test://db/huge.png" || !strings.Contains(huge.Text, "20000×20000 pixels") {
		t.Errorf("test://db/huge.png: %T %+v, want text under its URI saying what it was", huge, huge)
	}
	if bin, ok := read("test://db/data.bin").(mcp.BlobResourceContents); !ok || len(bin.Blob) != base64.StdEncoding.EncodedLen(6<<20) {
		t.Errorf("test://db/data.bin, no image: %T, want its blob as it came", bin)
	}
}

// imageSize decodes the size of a base64 image.
func imageSize(tb testing.TB, data, mime string) image.Config {
	tb.Helper()
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		tb.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(raw))
	if err != nil {
		tb.Fatal(err)
	}
	// A scaled image comes as the smaller of its PNG and JPEG (an opaque one), and says which.
	if mime != "image/"+format || format != "png" && format != "jpeg" {
		tb.Fatalf("a %s image sent as %s; want a PNG or a JPEG, as its type says", format, mime)
	}
	return cfg
}
