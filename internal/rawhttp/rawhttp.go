// Package rawhttp sends HTTP requests whose request line is written as it
// is, unlike net/http's client, which cleans a path before sending it. The
// tests of the servers use it to send paths such as /../x or //x.
package rawhttp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Do connects to addr, writes "METHOD TARGET HTTP/1.1" with a Host header
// and Connection: close, and returns the response's status code and body.
// The whole exchange must end within timeout.
func Do(addr, method, target string, timeout time.Duration) (int, string, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, "", err
	}
	defer c.Close()
	if err := c.SetDeadline(time.Now().Add(timeout)); err != nil {
		return 0, "", err
	}
	if _, err := fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", method, target, addr); err != nil {
		return 0, "", err
	}
	req, err := http.NewRequest(method, "http://"+addr+"/", nil)
	if err != nil {
		return 0, "", err
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: %w", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, "", fmt.Errorf("%s %s: reading the body: %w", method, target, err)
	}
	return resp.StatusCode, string(b), nil
}
