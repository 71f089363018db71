// Command ceiling is the bench's compiled HTTP load client (issue 16): N keep-alive connections,
// each posting the same body to one URL as soon as its previous request was answered, for a fixed
// duration after a warm-up. It prints one JSON line: requests/s of the measured phase. Standard
// library only, so it builds offline.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

type result struct {
	Connections       int     `json:"connections"`
	Requests          int64   `json:"requests"`
	Failed            int64   `json:"failed"`
	ElapsedMs         float64 `json:"elapsedMs"`
	RequestsPerSecond float64 `json:"requestsPerSecond"`
	FirstFailure      string  `json:"firstFailure,omitempty"`
	GoVersion         string  `json:"goVersion,omitempty"`
}

func main() {
	url := flag.String("url", "", "URL to POST to")
	bodyFile := flag.String("body", "", "file holding the request body")
	connections := flag.Int("connections", 64, "keep-alive connections, one request in flight on each")
	warmUp := flag.Duration("warmup", time.Second, "load before the measured phase (not counted)")
	duration := flag.Duration("duration", 5*time.Second, "measured phase")
	flag.Parse()
	if *url == "" || *bodyFile == "" || *connections < 1 {
		fmt.Fprintln(os.Stderr, "usage: ceiling -url URL -body FILE [-connections N] [-warmup D] [-duration D]")
		os.Exit(2)
	}
	body, err := os.ReadFile(*bodyFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	client := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			MaxIdleConns:        *connections,
			MaxIdleConnsPerHost: *connections,
			MaxConnsPerHost:     *connections,
			DisableCompression:  true,
		},
	}

	var measuring, stopping atomic.Bool
	var requests, failed atomic.Int64
	var firstFailure atomic.Value
	var wg sync.WaitGroup
	for c := 0; c < *connections; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stopping.Load() {
				ok := post(client, *url, body, &firstFailure)
				if !measuring.Load() {
					continue
				}
				requests.Add(1)
				if !ok {
					failed.Add(1)
				}
			}
		}()
	}
	time.Sleep(*warmUp)
	started := time.Now()
	measuring.Store(true)
	time.Sleep(*duration)
	measuring.Store(false)
	elapsed := time.Since(started)
	stopping.Store(true)
	wg.Wait()

	r := result{
		Connections:       *connections,
		Requests:          requests.Load(),
		Failed:            failed.Load(),
		ElapsedMs:         float64(elapsed.Microseconds()) / 1000,
		RequestsPerSecond: float64(requests.Load()-failed.Load()) / elapsed.Seconds(),
		GoVersion:         runtime.Version(),
	}
	if f, ok := firstFailure.Load().(string); ok {
		r.FirstFailure = f
	}
	out, _ := json.Marshal(r)
	fmt.Println(string(out))
}

// post sends one request and reads the answer to the end (so the connection is reused); true on a 2xx.
func post(client *http.Client, url string, body []byte, firstFailure *atomic.Value) bool {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		firstFailure.CompareAndSwap(nil, err.Error())
		return false
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		firstFailure.CompareAndSwap(nil, err.Error())
		return false
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		firstFailure.CompareAndSwap(nil, fmt.Sprintf("status %d", res.StatusCode))
		return false
	}
	return true
}
