package rules

import "path/filepath"

// fixtureRoot returns the path of the committed snapshot fixtures/name.
func fixtureRoot(name string) string { return filepath.Join("..", "..", "fixtures", name) }
