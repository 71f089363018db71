// Command go-v3 sends one call of every type through the real Segment Go client, analytics-go v3,
// to a Segment-compatible endpoint, then closes the client (which flushes) and exits.
//
//	go-v3 <endpoint> <writeKey> <runId>
//
// Every HTTP request the client makes is printed on stdout as one JSON line (path, auth user,
// status, raw body), so a test can compare what arrived with what was on the wire. Exits 1 when
// the client reports a failed message or a request is not answered 2xx.
package main

import (
	"fmt"
	"net/http"
	"os"
	"sync"
	"time"

	analytics "github.com/segmentio/analytics-go/v3"
	"hookline.test/segment/recorder"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go-v3 <endpoint> <writeKey> <runId>")
		os.Exit(2)
	}
	endpoint, writeKey, run := os.Args[1], os.Args[2], os.Args[3]

	wire := &recorder.Transport{Next: http.DefaultTransport}
	callback := &failures{}
	client, err := analytics.NewWithConfig(writeKey, analytics.Config{
		Endpoint:  endpoint,
		Transport: wire,
		Callback:  callback,
		BatchSize: 100,
		// Fail fast: a refused batch is retried 10 times; keep that under a second.
		RetryAfter: func(int) time.Duration { return 50 * time.Millisecond },
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "config:", err)
		os.Exit(2)
	}

	user := run + "-user"
	anon := run + "-anon"
	messages := []analytics.Message{
		analytics.Identify{
			UserId: user,
			Traits: analytics.NewTraits().SetName("Zoë Client").SetEmail("zoe@example.com").
				Set("plan", "pro").Set("logins", 42),
		},
		analytics.Track{
			UserId: user,
			Event:  "Order Completed",
			Properties: analytics.NewProperties().SetRevenue(19.9).SetCurrency("EUR").
				Set("orderId", run+"-order").Set("items", 3),
		},
		analytics.Track{
			AnonymousId: anon,
			Event:       "Signup Viewed",
			Properties:  analytics.NewProperties().Set("step", 1),
		},
		analytics.Page{
			UserId:     user,
			Name:       "Pricing",
			Properties: analytics.NewProperties().SetPath("/pricing").SetTitle("Pricing"),
		},
		analytics.Screen{
			UserId:     user,
			Name:       "Settings",
			Properties: analytics.NewProperties().Set("tab", "privacy"),
		},
		analytics.Group{
			UserId:  user,
			GroupId: run + "-group",
			Traits:  analytics.NewTraits().SetName("Acme").Set("employees", 120),
		},
		analytics.Alias{PreviousId: anon, UserId: user},
	}
	for _, m := range messages {
		if err := client.Enqueue(m); err != nil {
			fmt.Fprintln(os.Stderr, "enqueue:", err)
			os.Exit(1)
		}
	}
	if err := client.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
		os.Exit(1)
	}
	if n := callback.count(); n > 0 || wire.Failed() {
		fmt.Fprintf(os.Stderr, "%d message(s) failed; see the requests above\n", n)
		os.Exit(1)
	}
}

type failures struct {
	mu sync.Mutex
	n  int
}

func (f *failures) Success(analytics.Message) {}

func (f *failures) Failure(m analytics.Message, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	fmt.Fprintf(os.Stderr, "failed: %T: %v\n", m, err)
}

func (f *failures) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n
}
