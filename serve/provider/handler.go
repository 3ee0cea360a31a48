package provider

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/oasis-replay/oasis-replay/store"
)

// errorPrefix starts every error the server answers, so that a runner's log shows where it
// came from.
const errorPrefix = "oasis-replay serve provider: "

func (s *Server) handler(side string) http.Handler {
	return http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		target := req.URL.RequestURI()
		body, err := io.ReadAll(io.LimitReader(req.Body, s.maxBody()+1))
		if err != nil {
			s.writeError(rw, http.StatusBadRequest, callError{Side: side, Method: req.Method, Target: target,
				Reason: "reading the request body: " + err.Error()})
			return
		}
		if int64(len(body)) > s.maxBody() {
			s.refuse(rw, callError{Side: side, Method: req.Method, Target: target,
				Reason: fmt.Sprintf("the request body is longer than %d bytes, too long to equal any recorded one", s.maxBody())})
			return
		}
		a, repeated := s.next(matchKey{side: side, method: req.Method, target: target, body: bodyKey(body)})
		if a == nil {
			s.refuse(rw, s.unmatched(side, req.Method, target))
			return
		}
		if a.problem != "" {
			s.count(func(st *Stats) { st.Failed++ })
			s.writeError(rw, http.StatusBadGateway, callError{Side: side, Method: req.Method, Target: target, Reason: a.problem, Exchange: a.source})
			return
		}
		s.count(func(st *Stats) {
			st.Answered++
			if repeated {
				st.Repeated++
			}
		})
		h := rw.Header()
		for name, values := range a.header {
			h[name] = values
		}
		answerLength(h, a)
		rw.WriteHeader(a.status)
		_, _ = rw.Write(a.body)
	})
}

// maxBody is the longest request body read: twice the longest recorded one and 64 KiB more,
// room for a JSON body equal to a recorded one but written with more whitespace.
func (s *Server) maxBody() int64 { return 2*s.maxRequest + 64<<10 }

// next is the recorded answer the call gets, and whether it was given before: the next of its
// sequence, or its last once all were given; nil when nothing was recorded for it.
func (s *Server) next(key matchKey) (*answer, bool) {
	seq := s.sequences[key]
	if seq == nil {
		return nil, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq.next == len(seq.answers) {
		return seq.answers[len(seq.answers)-1], true
	}
	seq.next++
	return seq.answers[seq.next-1], false
}

func (s *Server) count(f func(*Stats)) {
	s.mu.Lock()
	f(&s.stats)
	s.mu.Unlock()
}

// answerLength frames the body as it was framed when recorded: with a Content-Length (of the
// replayed body, which may differ from the recorded one by a redaction marker) when the answer
// had one, else chunked, so that the runner sees the headers it saw then.
func answerLength(h http.Header, a *answer) {
	switch {
	case !bodyAllowed(a.status):
	case a.length:
		h.Set("Content-Length", strconv.Itoa(len(a.body)))
	default:
		h.Set("Transfer-Encoding", "chunked")
	}
}

// bodyAllowed reports whether an answer of this status has a body (RFC 9110 §6.4.1).
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// callError is the JSON error the server answers: the SI provider guide's error shape (§4.1:
// status "error" and an error message) and what was asked.
type callError struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Side   string `json:"side"`
	Method string `json:"method"`
	Target string `json:"target"`
	Reason string `json:"reason"`
	// Exchange is the manifest path of the recorded exchange that cannot be replayed.
	Exchange string `json:"exchange,omitempty"`
	// Closest are recorded requests of the same side like the unmatched one.
	Closest []recordedRequest `json:"closest,omitempty"`
}

type recordedRequest struct {
	Method   string `json:"method"`
	Target   string `json:"target"`
	Body     string `json:"body,omitempty"`
	Exchange string `json:"exchange"`
}

// maxClosest is how many recorded requests an unmatched call's error lists.
const maxClosest = 3

// unmatched explains why no recorded exchange answers a call, naming the closest recorded
// requests: those with the same method and target (whose bodies differ), else those with the
// same path, else those with the same method.
func (s *Server) unmatched(side, method, target string) callError {
	e := callError{Side: side, Method: method, Target: target}
	path, _, _ := strings.Cut(target, "?")
	var sameCall, samePath, sameMethod []*answer
	for _, a := range s.recorded[side] {
		aPath, _, _ := strings.Cut(a.target, "?")
		switch {
		case a.method == method && a.target == target:
			sameCall = append(sameCall, a)
		case aPath == path:
			samePath = append(samePath, a)
		case a.method == method:
			sameMethod = append(sameMethod, a)
		}
	}
	var closest []*answer
	switch {
	case len(sameCall) > 0:
		e.Reason = fmt.Sprintf("the bundle holds %d %s %s requests, none with this body", len(sameCall), method, target)
		closest = sameCall
	case len(samePath) > 0:
		e.Reason = fmt.Sprintf("the bundle holds %s requests to %s only with another method or query", side, path)
		closest = samePath
	default:
		e.Reason = fmt.Sprintf("the bundle holds no %s request to %s", side, path)
		closest = sameMethod
	}
	for _, a := range closest[:min(len(closest), maxClosest)] {
		e.Closest = append(e.Closest, recordedRequest{Method: a.method, Target: a.target, Body: a.requestStart, Exchange: a.source})
	}
	return e
}

// refuse answers a call the bundle holds no answer to: 404, and a line in the log.
func (s *Server) refuse(rw http.ResponseWriter, e callError) {
	s.count(func(st *Stats) { st.Refused++ })
	if s.log != nil {
		s.mu.Lock()
		fmt.Fprintf(s.log, "no recorded answer: %s %s %s: %s\n", e.Side, e.Method, e.Target, e.Reason)
		s.mu.Unlock()
	}
	s.writeError(rw, http.StatusNotFound, e)
}

func (s *Server) writeError(rw http.ResponseWriter, status int, e callError) {
	e.Status = "error"
	e.Error = errorPrefix + e.Side + " " + e.Method + " " + e.Target + ": " + e.Reason
	b, err := store.Marshal(e)
	if err != nil {
		b = []byte(`{"status":"error","error":"` + errorPrefix + `the error cannot be encoded"}`)
	}
	rw.Header().Set("Content-Type", "application/json")
	rw.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	rw.WriteHeader(status)
	_, _ = rw.Write(append(b, '\n'))
}
