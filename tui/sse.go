package tui

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// maxEventBytes bounds one admin-API event (a finding, a summary, a probe result).
const maxEventBytes = 4 << 20

// sseEvent is one Server-Sent Event from the admin API.
type sseEvent struct {
	Name string
	Data []byte
}

// readSSE calls fn for each event on r until r ends, fn returns an error, or a line exceeds
// maxEventBytes. Comment lines (keepalives) are skipped; multi-line data is joined with \n as
// the SSE framing says. It is a streaming reader: each event is delivered as soon as its blank
// line arrives, which wire.ParseSSE (whole bodies) does not do.
func readSSE(r io.Reader, fn func(sseEvent) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxEventBytes)
	var ev sseEvent
	var data bytes.Buffer
	has := false
	for sc.Scan() {
		line := bytes.TrimSuffix(sc.Bytes(), []byte("\r"))
		if len(line) == 0 {
			if has {
				ev.Data = bytes.Clone(data.Bytes())
				if err := fn(ev); err != nil {
					return err
				}
			}
			ev, has = sseEvent{}, false
			data.Reset()
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name, has = string(value), true
		case "data":
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			if data.Len()+len(value) > maxEventBytes {
				return fmt.Errorf("reading the admin API's event stream: an event is larger than %d bytes", maxEventBytes)
			}
			data.Write(value)
			has = true
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the admin API's event stream: %w", err)
	}
	return nil
}
