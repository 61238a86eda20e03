package site

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wadn-go/wadn/wadn/experiment"
	"github.com/wadn-go/wadn/wadn/experiment/figures"
)

// Handler serves the site of the report that Collect returns, read anew
// when a request comes more than Refresh after the last read, so that it
// follows runs as they are written. It serves the site's own files alone,
// by their paths (Site.Paths; "/" is index.html), and answers GET and HEAD
// only:
//
//   - another method: 405 Method Not Allowed;
//   - a path with a "." or ".." segment (as sent or once decoded), an
//     empty segment ("//", an absolute path after the root), a backslash
//     or a NUL: 400 Bad Request;
//   - any other path that is not a file of the site: 404 Not Found.
//
// It never opens a file by a request's path: a site's files are rendered
// from the report, whose run directories Collect alone chooses. A report
// that cannot be read is a 500 saying why. A Handler is safe for
// concurrent use; its fields must not change once it serves.
type Handler struct {
	// Collect reads the report: experiment.Scan of the served directories.
	Collect func() (*experiment.Report, error)
	// Figures, when not nil, draws the figures of the site's figures page
	// (Options.Figures) from each report read.
	Figures func(*experiment.Report) ([]figures.Figure, error)
	// Refresh is how long a read report is served before the next request
	// reads it again; 0 reads it for every request.
	Refresh time.Duration

	mu   sync.Mutex
	site *Site
	at   time.Time
}

// ServeHTTP answers one request, as the Handler's doc says.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
		return
	}
	name, ok := sitePath(r)
	if !ok {
		http.Error(w, "not a path of this site", http.StatusBadRequest)
		return
	}
	s, err := h.current()
	if err != nil {
		http.Error(w, "the runs cannot be read: "+err.Error(), http.StatusInternalServerError)
		return
	}
	b, mediaType, err := s.File(name)
	if errors.Is(err, ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", mediaType)
	w.Header().Set("Cache-Control", "no-cache")
	if strings.HasPrefix(mediaType, "text/html") {
		// The pages load their style sheet, icon and figures from the site
		// and nothing else: no script, no frame, nothing from elsewhere.
		w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(b)
}

// sitePath returns the site's path that r asks for ("/" is index.html),
// and false for a path no site's file can have: one with a "." or ".."
// segment, as sent or decoded, an empty segment, a backslash or a NUL.
func sitePath(r *http.Request) (string, bool) {
	for _, p := range []string{r.URL.Path, r.URL.EscapedPath()} {
		if !strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") {
			return "", false
		}
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		return "index.html", true
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", false
		}
	}
	// The escaped form too: "%2e%2e" is ".." once decoded, which the
	// loop above sees; a segment that decodes to "/" ("%2f") joins
	// segments, which the loop cannot see.
	if strings.Contains(strings.ToLower(r.URL.EscapedPath()), "%2f") {
		return "", false
	}
	return name, true
}

// current returns the site of the last report read, reading it again
// when it is older than Refresh.
func (h *Handler) current() (*Site, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.site != nil && time.Since(h.at) < h.Refresh {
		return h.site, nil
	}
	rep, err := h.Collect()
	if err != nil {
		return nil, err
	}
	opt := Options{Generated: time.Now()}
	if h.Figures != nil {
		if opt.Figures, err = h.Figures(rep); err != nil {
			return nil, err
		}
	}
	h.site, h.at = New(rep, opt), opt.Generated
	return h.site, nil
}
