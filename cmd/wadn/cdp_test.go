//go:build unix

package main

import (
	"bufio"
	"crypto/rand"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// This file is a client of the Chrome DevTools Protocol, as much as the
// browser test needs: a WebSocket connection (RFC 6455) to one page of a
// browser started with --remote-debugging-port, commands sent and their
// results awaited by id, and the events kept in order for the test to
// read.

// cdpConn is a DevTools connection to one page.
type cdpConn struct {
	conn net.Conn
	wmu  sync.Mutex // one frame written at a time

	mu      sync.Mutex
	nextID  int64
	waiting map[int64]chan cdpMessage
	events  []cdpMessage
	err     error         // why reading stopped
	changed chan struct{} // closed and renewed when an event or the error comes
}

// cdpMessage is a message from the browser: a command's result (ID set)
// or an event (Method set).
type cdpMessage struct {
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// dialCDP opens a WebSocket to the DevTools endpoint wsURL
// ("ws://127.0.0.1:PORT/devtools/page/ID").
func dialCDP(wsURL string) (*cdpConn, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "ws" {
		return nil, fmt.Errorf("%s: want a ws:// address", wsURL)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, 16)
	rand.Read(nonce)
	key := base64.StdEncoding.EncodeToString(nonce)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, key)
	br := bufio.NewReaderSize(conn, 1<<16)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake: %w", err)
	}
	conn.SetReadDeadline(time.Time{})
	sum := sha1.Sum([]byte(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"))
	if resp.StatusCode != http.StatusSwitchingProtocols || resp.Header.Get("Sec-WebSocket-Accept") != base64.StdEncoding.EncodeToString(sum[:]) {
		conn.Close()
		return nil, fmt.Errorf("websocket handshake: %s", resp.Status)
	}
	c := &cdpConn{conn: conn, waiting: map[int64]chan cdpMessage{}, changed: make(chan struct{})}
	go c.read(br)
	return c, nil
}

// Close closes the connection.
func (c *cdpConn) Close() error { return c.conn.Close() }

// read reads messages until the connection ends, handing results to their
// waiters and keeping events.
func (c *cdpConn) read(br *bufio.Reader) {
	for {
		b, err := c.readMessage(br)
		var m cdpMessage
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		c.mu.Lock()
		if err != nil {
			c.err = err
			for _, ch := range c.waiting {
				close(ch)
			}
			c.waiting = nil
			close(c.changed)
			c.mu.Unlock()
			return
		}
		if m.ID != 0 {
			if ch, ok := c.waiting[m.ID]; ok {
				ch <- m
				delete(c.waiting, m.ID)
			}
		} else {
			c.events = append(c.events, m)
			close(c.changed)
			c.changed = make(chan struct{})
		}
		c.mu.Unlock()
	}
}

// readMessage reads the frames of one text or binary message, answering
// pings on the way.
func (c *cdpConn) readMessage(br *bufio.Reader) ([]byte, error) {
	var msg []byte
	for {
		var head [2]byte
		if _, err := io.ReadFull(br, head[:]); err != nil {
			return nil, err
		}
		fin, op := head[0]&0x80 != 0, head[0]&0x0f
		masked, n := head[1]&0x80 != 0, uint64(head[1]&0x7f)
		switch n {
		case 126:
			var ext [2]byte
			if _, err := io.ReadFull(br, ext[:]); err != nil {
				return nil, err
			}
			n = uint64(ext[0])<<8 | uint64(ext[1])
		case 127:
			var ext [8]byte
			if _, err := io.ReadFull(br, ext[:]); err != nil {
				return nil, err
			}
			n = 0
			for _, b := range ext {
				n = n<<8 | uint64(b)
			}
		}
		if n > 1<<30 {
			return nil, fmt.Errorf("websocket frame of %d bytes", n)
		}
		var mask [4]byte
		if masked {
			if _, err := io.ReadFull(br, mask[:]); err != nil {
				return nil, err
			}
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(br, payload); err != nil {
			return nil, err
		}
		if masked {
			for i := range payload {
				payload[i] ^= mask[i%4]
			}
		}
		switch op {
		case 0x8: // close
			return nil, io.EOF
		case 0x9: // ping
			if err := c.writeFrame(0xA, payload); err != nil {
				return nil, err
			}
			continue
		case 0xA: // pong
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

// writeFrame writes one masked frame, as a client must, of opcode op.
func (c *cdpConn) writeFrame(op byte, payload []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	frame := []byte{0x80 | op}
	switch n := len(payload); {
	case n < 126:
		frame = append(frame, 0x80|byte(n))
	case n < 1<<16:
		frame = append(frame, 0x80|126, byte(n>>8), byte(n))
	default:
		frame = append(frame, 0x80|127)
		for shift := 56; shift >= 0; shift -= 8 {
			frame = append(frame, byte(uint64(n)>>shift))
		}
	}
	var mask [4]byte
	rand.Read(mask[:])
	frame = append(frame, mask[:]...)
	for i, b := range payload {
		frame = append(frame, b^mask[i%4])
	}
	_, err := c.conn.Write(frame)
	return err
}

// Call sends the command method with params and decodes its result into
// result (when not nil), waiting at most timeout.
func (c *cdpConn) Call(method string, params any, result any, timeout time.Duration) error {
	c.mu.Lock()
	if c.waiting == nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("%s: connection closed: %v", method, err)
	}
	c.nextID++
	id := c.nextID
	ch := make(chan cdpMessage, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	if params == nil {
		params = struct{}{}
	}
	b, err := json.Marshal(struct {
		ID     int64  `json:"id"`
		Method string `json:"method"`
		Params any    `json:"params"`
	}{id, method, params})
	if err != nil {
		return err
	}
	if err := c.writeFrame(0x1, b); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: connection closed", method)
		}
		if m.Error != nil {
			return fmt.Errorf("%s: %s (%d)", method, m.Error.Message, m.Error.Code)
		}
		if result != nil {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-time.After(timeout):
		return fmt.Errorf("%s: no answer in %v", method, timeout)
	}
}

// Events returns the events received from the n-th on.
func (c *cdpConn) Events(n int) []cdpMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n >= len(c.events) {
		return nil
	}
	return append([]cdpMessage(nil), c.events[n:]...)
}

// WaitEvent waits at most timeout for an event called method from the
// n-th event on.
func (c *cdpConn) WaitEvent(n int, method string, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		c.mu.Lock()
		for _, e := range c.events[min(n, len(c.events)):] {
			if e.Method == method {
				c.mu.Unlock()
				return nil
			}
		}
		changed, err := c.changed, c.err
		c.mu.Unlock()
		if err != nil {
			return fmt.Errorf("waiting for %s: %w", method, err)
		}
		select {
		case <-changed:
		case <-deadline:
			return errors.New("no " + method + " in " + timeout.String())
		}
	}
}

// pageTarget returns the DevTools address of a page of the browser
// whose DevTools HTTP endpoint is at host ("127.0.0.1:PORT").
func pageTarget(host string) (string, error) {
	resp, err := http.Get("http://" + host + "/json/list")
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var targets []struct {
		Type string `json:"type"`
		WS   string `json:"webSocketDebuggerUrl"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		return "", err
	}
	for _, t := range targets {
		if t.Type == "page" && strings.HasPrefix(t.WS, "ws://") {
			return t.WS, nil
		}
	}
	return "", fmt.Errorf("no page among the browser's %d targets", len(targets))
}
