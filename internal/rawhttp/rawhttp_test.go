package rawhttp

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestDo: the request line reaches the server as written, dot segments
// and doubled slashes included, and the status and body come back.
func TestDo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
		w.Write([]byte(r.Method + " " + r.RequestURI))
	}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	for _, tc := range []struct{ method, target string }{
		{"GET", "/../etc/passwd"},
		{"GET", "//etc/passwd"},
		{"HEAD", "/%2e%2e/x"},
		{"POST", "/a/./b"},
	} {
		code, body, err := Do(addr, tc.method, tc.target, 10*time.Second)
		if err != nil {
			t.Fatalf("%s %s: %v", tc.method, tc.target, err)
		}
		if code != http.StatusTeapot {
			t.Errorf("%s %s: status %d, want %d", tc.method, tc.target, code, http.StatusTeapot)
		}
		want := tc.method + " " + tc.target
		if tc.method == "HEAD" {
			want = ""
		}
		if body != want {
			t.Errorf("%s %s: body %q, want %q", tc.method, tc.target, body, want)
		}
	}
	if _, _, err := Do("127.0.0.1:1", "GET", "/", time.Second); err == nil {
		t.Error("a closed port gave no error")
	}
}
