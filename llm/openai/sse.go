package openai

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// sseEvent is one dispatched server-sent event.
type sseEvent struct {
	// name is the event's "event:" field; "" for the default message event.
	// It is "error" for an event sent as an "error:" field (llama.cpp).
	name string
	// data is the event's data lines joined with "\n".
	data []byte
}

// sseReader splits a text/event-stream body into events, following the
// WHATWG server-sent events rules: lines end in "\n", "\r\n" or "\r"; a line
// starting with ":" is a comment; "data:" lines (with or without the space
// after the colon) accumulate, joined by "\n"; a blank line dispatches the
// event. Lines and events are limited to max bytes, except comments, which
// are skipped however long or many they are. Unlike the specification, an
// event whose lines are all complete is still dispatched when the stream ends
// without the final blank line; an event cut inside a line is dropped.
type sseReader struct {
	r   *bufio.Reader
	max int

	line   []byte
	skipLF bool // the last line ended in "\r": a following "\n" belongs to it

	name    string
	data    []byte
	hasData bool
}

func newSSEReader(r io.Reader, max int) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next event. At the end of the stream it returns io.EOF,
// or io.ErrUnexpectedEOF when the stream stopped inside a line; other read
// errors are returned as they are.
func (s *sseReader) next() (sseEvent, error) {
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && s.hasData {
				return s.dispatch(), nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if s.hasData {
				return s.dispatch(), nil
			}
			s.name = ""
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "data":
			s.appendData(value)
		case "error": // llama.cpp sends a stream error as "error: {...}"
			s.name = "error"
			s.appendData(value)
		case "event":
			s.name = string(value)
		}
		if len(s.data) > s.max {
			return sseEvent{}, fmt.Errorf("%w: event over %d bytes", ErrTooLarge, s.max)
		}
	}
}

func (s *sseReader) appendData(v []byte) {
	if s.hasData {
		s.data = append(s.data, '\n')
	}
	s.data = append(s.data, v...)
	s.hasData = true
}

func (s *sseReader) dispatch() sseEvent {
	ev := sseEvent{name: s.name, data: s.data}
	s.name, s.data, s.hasData = "", nil, false
	return ev
}

// readLine returns the next line without its terminator. The returned slice
// is valid until the next call. Comment lines come back as ":" alone, their
// text skipped without being kept.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	started, comment := false, false
	for {
		buf, err := s.peekBuffered()
		if err != nil {
			if err == io.EOF && started {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if s.skipLF {
			s.skipLF = false
			if buf[0] == '\n' {
				s.r.Discard(1)
				continue
			}
		}
		if !started {
			started, comment = true, buf[0] == ':'
		}
		i := bytes.IndexAny(buf, "\r\n")
		n := i
		if i < 0 {
			n = len(buf)
		}
		if comment {
			if len(s.line) == 0 {
				s.line = append(s.line, ':')
			}
		} else {
			if len(s.line)+n > s.max {
				return nil, fmt.Errorf("%w: stream line over %d bytes", ErrTooLarge, s.max)
			}
			s.line = append(s.line, buf[:n]...)
		}
		if i < 0 {
			s.r.Discard(n)
			continue
		}
		s.skipLF = buf[i] == '\r'
		s.r.Discard(i + 1)
		return s.line, nil
	}
}

// peekBuffered returns the bytes already buffered, reading more only when
// there are none, so that a complete line is never held back waiting for
// more input.
func (s *sseReader) peekBuffered() ([]byte, error) {
	if s.r.Buffered() == 0 {
		if _, err := s.r.Peek(1); err != nil {
			return nil, err
		}
	}
	b, _ := s.r.Peek(s.r.Buffered()) // that many bytes are buffered: no error
	return b, nil
}
