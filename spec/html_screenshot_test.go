package spec

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/strataspec/strataspec/engine/audit"
)

// chromium returns the path of a Chromium or Chrome binary, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// TestHTMLScreenshot renders the HTML report of fixtures/m5-v3 in headless
// Chromium, as a person opening it would see it, and checks the picture:
// it decodes as a PNG, is not blank, and the verdict at the top of the
// page is drawn in the fail colour (#b00020). CI does not install Chromium
// (its time budget); the test skips there, saying so. On Debian:
// apt-get install chromium.
func TestHTMLScreenshot(t *testing.T) {
	t.Parallel() // Chromium mostly waits: let the other tests run meanwhile
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium on PATH (apt-get install chromium): the HTML report is not rendered")
	}
	if testing.Short() {
		t.Skip("-short: Chromium takes seconds to start")
	}
	rep, err := audit.Audit("../fixtures/m5-v3", "")
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := rep.Write(&page, "html"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	html, shot := filepath.Join(dir, "report.html"), filepath.Join(dir, "shot.png")
	if err := os.WriteFile(html, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--screenshot="+shot, "--window-size=1100,1400", "file://"+html)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", bin, err, out)
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("chromium wrote no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("png.Decode(%s): %v", shot, err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 1000 {
		t.Fatalf("screenshot is %dx%d; want the 1100x1400 window", b.Dx(), b.Dy())
	}
	if v := lumaVariance(img, b); v < 100 {
		t.Errorf("screenshot luma variance = %.1f; want > 100 (a page, not a blank)", v)
	}
	// The verdict is the first thing on the page: its band lies in the top
	// 150 pixels, in the fail colour.
	top := image.Rect(b.Min.X, b.Min.Y, b.Max.X, b.Min.Y+150)
	if n := countNear(img, top, 0xb0, 0x00, 0x20); n < 5000 {
		t.Errorf("%d pixels of the fail colour #b00020 in the top 150 rows; want ≥ 5000 (the verdict band)", n)
	}
}

// lumaVariance is the variance of the pixels' luma over r.
func lumaVariance(img image.Image, r image.Rectangle) float64 {
	var sum, sq, n float64
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			l := (0.299*float64(cr) + 0.587*float64(cg) + 0.114*float64(cb)) / 257
			sum, sq, n = sum+l, sq+l*l, n+1
		}
	}
	mean := sum / n
	return sq/n - mean*mean
}

// countNear counts the pixels of r within 24 of the colour on each channel.
func countNear(img image.Image, r image.Rectangle, wr, wg, wb uint8) int {
	n := 0
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d > -24 && d < 24 }
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if near(cr, wr) && near(cg, wg) && near(cb, wb) {
				n++
			}
		}
	}
	return n
}
