// Package tui will be the bubbletea console (`mcpctl console`). No issue has asked for it yet;
// the package exists so the fixed layout (DESIGN §1) is visible.
package tui
