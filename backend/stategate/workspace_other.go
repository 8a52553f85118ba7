//go:build !unix

package stategate

// openArtifactFlags: Windows has no FIFOs in a directory and os.Root
// already refuses links that leave the workspace.
const openArtifactFlags = 0
