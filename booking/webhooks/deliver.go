package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"slotfare/booking"
	"slotfare/booking/events"
)

type httpClient struct{ c *http.Client }

// newHTTPClient follows no redirect (a 3xx is a failure) and, without
// AllowPrivate, refuses at connect time an address a hook may not reach,
// whatever the name resolved to when the hook was made.
func newHTTPClient(o Options) *httpClient {
	d := &net.Dialer{Timeout: o.Timeout}
	if !o.AllowPrivate {
		d.Control = func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !public(ap.Addr()) {
				return fmt.Errorf("webhooks: %s is not a public address", address)
			}
			return nil
		}
	}
	t := &http.Transport{DialContext: d.DialContext, TLSHandshakeTimeout: o.Timeout, ResponseHeaderTimeout: o.Timeout, MaxIdleConnsPerHost: 2}
	return &httpClient{c: &http.Client{Transport: t, Timeout: o.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// send posts one event to h, signed; nil when the endpoint answered 2xx.
func (c *httpClient) send(ctx context.Context, h Hook, e events.Event, now time.Time) error {
	body, err := json.Marshal(e)
	if err != nil {
		return err
	}
	sig, err := Sign(h.Secret, e.ID, now, body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("webhook-id", e.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := c.c.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("answered %d", resp.StatusCode)
	}
	return nil
}

// Step delivers, at now, to every enabled hook due (NextAttempt reached)
// the events after its cursor, in order, at most Batch of them: each
// acknowledged one moves the stored cursor; the first failure stops the
// hook's step and schedules its retry (FirstRetry doubled per failure up
// to MaxRetry), or disables it once it has failed for DisableAfter, with
// a webhook.disabled event. The caller runs Step on one replica at a time
// (the lease); time comes from now, so tests drive the backoff.
func (s *Service) Step(ctx context.Context, now time.Time) error {
	hs, err := s.port.List(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, h := range hs {
		if h.DisabledAt != nil || now.Before(h.NextAttempt) {
			continue
		}
		errs = append(errs, s.deliver(ctx, h, now))
	}
	return errors.Join(errs...)
}

// deliver is Step for one hook.
func (s *Service) deliver(ctx context.Context, h Hook, now time.Time) error {
	p := booking.Principal{Role: h.Role, AccountID: h.Account}
	evs, _, err := s.source(ctx, p, h.Cursor, typesOf(h.Types), s.o.Batch)
	if err != nil {
		return err
	}
	// Each event's own cursor: the log read again one event at a time
	// from the hook's, so a failure mid-batch keeps what was acknowledged.
	for _, e := range evs {
		_, next, err := s.source(ctx, p, h.Cursor, typesOf(h.Types), 1)
		if err != nil {
			return err
		}
		if err := s.client.send(ctx, h, e, now); err != nil {
			return s.failed(ctx, h, now, err)
		}
		h.Cursor, h.FailingSince, h.Attempts, h.LastError = next, nil, 0, ""
		if ok, err := s.port.Save(ctx, h); err != nil || !ok {
			return err // deleted meanwhile: no more deliveries
		}
	}
	return nil
}

// failed records a failed delivery to h: its retry, or its end.
func (s *Service) failed(ctx context.Context, h Hook, now time.Time, cause error) error {
	if h.FailingSince == nil {
		t := now.UTC()
		h.FailingSince = &t
	}
	h.Attempts++
	h.LastError = cause.Error()
	wait := s.o.FirstRetry << min(h.Attempts-1, 30)
	if wait <= 0 || wait > s.o.MaxRetry {
		wait = s.o.MaxRetry
	}
	h.NextAttempt = now.Add(wait).UTC()
	if now.Sub(*h.FailingSince) >= s.o.DisableAfter {
		t := now.UTC()
		h.DisabledAt = &t
		e, err := events.New("evt_"+h.ID+"_disabled", events.WebhookDisabled, "webhooks/"+h.ID, now, viewOf(h))
		if err != nil {
			return err
		}
		if err := s.appendEvents(ctx, []events.Event{e}); err != nil {
			return err
		}
	}
	_, err := s.port.Save(ctx, h)
	return err
}
