// Command go-v2 sends one call of every type the client has (no screen in v2) through the real
// Segment Go client of the v2 line (github.com/segmentio/analytics-go, 2016) to a
// Segment-compatible endpoint, then closes the client (which flushes) and exits.
//
//	go-v2 <endpoint> <writeKey> <runId>
//
// Every HTTP request the client makes is printed on stdout as one JSON line (path, auth user,
// status, raw body). v2 logs failures but never reports them, so a request not answered 2xx
// makes this command exit 1.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	analytics "github.com/segmentio/analytics-go"
	"github.com/segmentio/backo-go"
	"hookline.test/segment/recorder"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: go-v2 <endpoint> <writeKey> <runId>")
		os.Exit(2)
	}
	endpoint, writeKey, run := os.Args[1], os.Args[2], os.Args[3]

	// v2 formats timestamps in local time as 2006-01-02T15:04:05-0700; pin UTC so the wire
	// form is the "+0000" one whatever the machine's zone.
	time.Local = time.UTC
	// Fail fast: v2 retries a refused batch 10 times; keep that under a second.
	analytics.Backo = backo.NewBacko(10*time.Millisecond, 2, 0, 50*time.Millisecond)

	wire := &recorder.Transport{Next: http.DefaultTransport}
	client := analytics.New(writeKey)
	client.Endpoint = endpoint
	client.Client = http.Client{Transport: wire, Timeout: 10 * time.Second}
	client.Logger = log.New(os.Stderr, "segment ", log.LstdFlags)

	user := run + "-user"
	anon := run + "-anon"
	calls := []error{
		client.Identify(&analytics.Identify{
			UserId: user,
			Traits: map[string]interface{}{"name": "Zoë Client", "email": "zoe@example.com", "plan": "pro", "logins": 42},
		}),
		client.Track(&analytics.Track{
			UserId:     user,
			Event:      "Order Completed",
			Properties: map[string]interface{}{"revenue": 19.9, "currency": "EUR", "orderId": run + "-order", "items": 3},
		}),
		client.Track(&analytics.Track{
			AnonymousId: anon,
			Event:       "Signup Viewed",
			Properties:  map[string]interface{}{"step": 1},
		}),
		client.Page(&analytics.Page{
			UserId: user,
			Name:   "Pricing",
			Traits: map[string]interface{}{"path": "/pricing", "title": "Pricing"}, // sent as "properties"
		}),
		client.Group(&analytics.Group{
			UserId:  user,
			GroupId: run + "-group",
			Traits:  map[string]interface{}{"name": "Acme", "employees": 120},
		}),
		client.Alias(&analytics.Alias{PreviousId: anon, UserId: user}),
	}
	for _, err := range calls {
		if err != nil {
			fmt.Fprintln(os.Stderr, "call:", err)
			os.Exit(1)
		}
	}
	if err := client.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "close:", err)
		os.Exit(1)
	}
	if wire.Failed() {
		fmt.Fprintln(os.Stderr, "a request failed; see the requests above")
		os.Exit(1)
	}
}
