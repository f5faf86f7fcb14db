// Package pipeline will turn large content into navigable indexes with exact drill-down:
// content stages, proxymodel definitions, a content-addressed cache and sections. No issue has
// asked for it yet; the package exists so the fixed layout (DESIGN §1) is visible.
package pipeline
