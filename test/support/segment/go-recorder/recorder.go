// Package recorder is shared by the Segment client programs next to it: an http.RoundTripper
// that prints every request it carries (path, Basic auth, status, raw body) as one JSON line on
// stdout, so a test can compare what Hookline stored with what was on the wire.
package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// Transport records the requests it forwards to Next.
type Transport struct {
	Next http.RoundTripper
	mu   sync.Mutex
	bad  bool
}

type record struct {
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	AuthUser    string          `json:"authUser"`
	AuthPass    string          `json:"authPassword"`
	ContentType string          `json:"contentType"`
	UserAgent   string          `json:"userAgent"`
	Status      int             `json:"status"`
	Error       string          `json:"error,omitempty"`
	Body        json.RawMessage `json:"body"`
}

// RoundTrip forwards the request and prints it with the answer's status.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	user, pass := basicAuth(req.Header.Get("Authorization"))
	rec := record{
		Method:      req.Method,
		Path:        req.URL.Path,
		AuthUser:    user,
		AuthPass:    pass,
		ContentType: req.Header.Get("Content-Type"),
		UserAgent:   req.Header.Get("User-Agent"),
		Body:        body,
	}
	res, err := t.Next.RoundTrip(req)
	if err != nil {
		rec.Error = err.Error()
	} else {
		rec.Status = res.StatusCode
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil || res.StatusCode >= 300 {
		t.bad = true
	}
	line, _ := json.Marshal(rec)
	fmt.Println(string(line))
	return res, err
}

// Failed says whether any request failed or was answered with a non-2xx status.
func (t *Transport) Failed() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.bad
}

func basicAuth(header string) (string, string) {
	if !strings.HasPrefix(header, "Basic ") {
		return "", ""
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(header, "Basic "))
	if err != nil {
		return "", ""
	}
	user, pass, _ := strings.Cut(string(decoded), ":")
	return user, pass
}
