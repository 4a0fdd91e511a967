package openai

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// dropListener hands out connections that, once they have written a
// response, drop the next request they get: they close without answering,
// as a server (llama-server, uvicorn) does when its keep-alive timer fires
// just as a client reuses the connection.
type dropListener struct {
	net.Listener
	accepted atomic.Int32
	dropped  atomic.Int32
}

func (l *dropListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted.Add(1)
	return &dropConn{Conn: c, l: l}, nil
}

type dropConn struct {
	net.Conn
	l     *dropListener
	wrote atomic.Bool
}

func (c *dropConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.wrote.Store(true)
	}
	return n, err
}

// Read passes on the first request; the bytes of a later one, which can
// only come after a response was written, close the connection instead.
func (c *dropConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && c.wrote.Load() {
		c.l.dropped.Add(1)
		c.Conn.Close()
		return 0, io.EOF
	}
	return n, err
}

// dropServer starts a server behind a dropListener that answers
// okCompletion and counts the requests its handler sees.
func dropServer(t *testing.T) (*httptest.Server, *dropListener, *atomic.Int32) {
	t.Helper()
	var handled atomic.Int32
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handled.Add(1)
		reply(200, "application/json", okCompletion)(w, r)
	}))
	l := &dropListener{Listener: srv.Listener}
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, l, &handled
}

func TestKeepAliveRace(t *testing.T) {
	srv, l, handled := dropServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	c, _ := testClient(Config{BaseURL: srv.URL, HTTPClient: &http.Client{Transport: tr}, MaxRetries: -1})
	for i := range 2 {
		if _, err := c.Complete(t.Context(), userReq("x")); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	// The second request went out on the first connection, which dropped
	// it; the transport sent it again on a new one, and the server's
	// handler saw it once.
	if l.dropped.Load() != 1 || l.accepted.Load() != 2 || handled.Load() != 2 {
		t.Errorf("dropped %d, connections %d, handled %d; want 1, 2, 2", l.dropped.Load(), l.accepted.Load(), handled.Load())
	}
}

// TestKeepAliveRaceControl shows that the race above is real: a POST
// without an Idempotency-Key fails on the dropped connection.
func TestKeepAliveRaceControl(t *testing.T) {
	srv, l, _ := dropServer(t)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	hc := &http.Client{Transport: tr}
	var errs []error
	for range 2 {
		resp, err := hc.Post(srv.URL, "application/json", strings.NewReader("{}"))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		errs = append(errs, err)
	}
	if errs[0] != nil || errs[1] == nil || l.dropped.Load() != 1 {
		t.Errorf("errors %v, dropped %d; want the second POST to fail on the dropped connection", errs, l.dropped.Load())
	}
}

func TestIdempotencyKey(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	var hits atomic.Int32
	base := serve(t, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Idempotency-Key"))
		mu.Unlock()
		if hits.Add(1) == 1 {
			reply(503, "application/json", `{"error":{"message":"overloaded","type":"server_error"}}`)(w, r)
			return
		}
		reply(200, "application/json", okCompletion)(w, r)
	}).URL
	c, _ := testClient(Config{BaseURL: base})
	for range 2 {
		if _, err := c.Complete(t.Context(), userReq("x")); err != nil {
			t.Fatal(err)
		}
	}
	// A retry repeats its request's key; the next request has its own.
	if len(keys) != 3 || keys[0] == "" || keys[1] != keys[0] || keys[2] == keys[0] {
		t.Errorf("keys %q; want a key repeated on the retry and a new one for the next request", keys)
	}
}

func TestIdempotencyKeyAfterFormatRefused(t *testing.T) {
	srv := &formatServer{refuse: map[string]string{"json_schema": refuseSchemaOpenAI}}
	c, _ := testClient(Config{BaseURL: serve(t, srv.handler).URL})
	if _, err := c.Complete(t.Context(), schemaReq("evaluation", strictSchema)); err != nil {
		t.Fatal(err)
	}
	// The body changed, so the key does too.
	if len(srv.keys) != 2 || srv.keys[0] == "" || srv.keys[1] == "" || srv.keys[0] == srv.keys[1] {
		t.Errorf("keys %q; want two different keys", srv.keys)
	}
}
