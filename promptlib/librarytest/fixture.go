package librarytest

import "github.com/mcpctl/mcpctl/promptlib"

// Ids of the Fixture's prompts and folders.
const (
	ReviewID = "D0000000-0000-4000-8000-000000000001"
	SystemID = "F0000000-0000-4000-8000-000000000001"
	SubSysID = "F0000000-0000-4000-8000-000000000002"
	WorkID   = "F0000000-0000-4000-8000-000000000003"
)

// Fixture is a small library: a prompt with a required and an optional placeholder and a url, a
// title clash, a folder, and the gate's system folder (mcpctl-system) with a subfolder.
func Fixture() promptlib.Library {
	return promptlib.Library{
		Folders: []promptlib.Folder{
			{ID: SystemID, Name: "mcpctl-system"},
			{ID: SubSysID, Name: "texts", ParentID: promptlib.Ptr(SystemID)},
			{ID: WorkID, Name: "Work"},
		},
		Prompts: []promptlib.Prompt{
			{ID: ReviewID, Title: "Code Review", FolderID: promptlib.Ptr(WorkID), URL: promptlib.Ptr("https://example.com/guide"),
				Content: "Review this **{{language}}** code. Be thorough.\n\n## Tone\n\nKeep it {{tone|friendly}}; {{language}} idioms first."},
			{ID: "D0000000-0000-4000-8000-000000000002", Title: "Code review", Content: "Another one."},
			{ID: "D0000000-0000-4000-8000-000000000003", Title: "Security Audit", Content: "Audit {{target}}."},
			{ID: "D0000000-0000-4000-8000-000000000004", Title: "Gate intro", FolderID: promptlib.Ptr(SystemID), Content: "system"},
			{ID: "D0000000-0000-4000-8000-000000000005", Title: "Gate text", FolderID: promptlib.Ptr(SubSysID), Content: "system"},
		},
	}
}
