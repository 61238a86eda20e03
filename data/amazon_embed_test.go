package data

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/wadn-go/wadn/internal/datadir"
)

var (
	regenerate      = flag.Bool("regenerate", false, "rebuild the embedded Amazon copy from the data directory")
	regenerateCheck = flag.Bool("regenerate-check", false, "check that the embedded Amazon copy is byte for byte what -regenerate would write")
)

// TestRegenerateEmbedded rebuilds embedded/amazon.wadz and its checksum from
// the svmlight files of the data directory when run with -regenerate (see
// the generate directive in amazon_embed.go). With -regenerate-check it instead
// checks that the embedded bytes are exactly what the encoder makes of the
// files today. Encoding at best compression takes seconds, so ordinary runs
// skip it; TestAmazonEmbeddedEqualsFiles checks the decoded content.
func TestRegenerateEmbedded(t *testing.T) {
	if !*regenerate && !*regenerateCheck {
		t.Skip("generator: run with -regenerate (or -regenerate-check)")
	}
	dir, ok := datadir.Find()
	if !ok {
		t.Skip(datadir.SkipReason)
	}
	domains, err := LoadAmazonSVMLight(filepath.Join(dir, AmazonDir))
	if err != nil {
		t.Fatal(err)
	}
	blob, err := encodeAmazon(domains)
	if err != nil {
		t.Fatal(err)
	}
	sum := fmt.Sprintf("%x  %s\n", sha256.Sum256(blob), filepath.Base(amazonBlobFile))
	if *regenerate {
		if err := os.WriteFile(amazonBlobFile, blob, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(amazonBlobFile+".sha256", []byte(sum), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes) and its checksum", amazonBlobFile, len(blob))
		return
	}
	if string(blob) != string(amazonBlob) || sum != amazonBlobSum {
		t.Errorf("embedded Amazon copy (%d bytes) differs from the encoding of %s (%d bytes); run go generate ./data", len(amazonBlob), dir, len(blob))
	}
}
