package auditlog

import "strconv"

// event reads one audit.k8s.io Event object (v1 or v1beta1) into e. Members it does not use
// are skipped, but validated.
func event(lx *lexer, e *Entry) error {
	if err := lx.beginObject(); err != nil {
		return err
	}
	// Three members may hold the time; only the one kept is decoded.
	var received, legacy, stamped token
	for first := true; ; first = false {
		key, more, err := lx.nextKey(first)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "kind":
			err = eventKind(lx)
		case "auditID":
			e.AuditID, err = lx.str()
		case "stage":
			e.Stage, err = lx.word()
		case "level":
			e.Level, err = lx.word()
		case "verb":
			e.Verb, err = lx.word()
		case "requestURI":
			e.RequestURI, err = lx.str()
		case "userAgent":
			e.UserAgent, err = lx.word()
		case "sourceIPs":
			e.SourceIPs, err = lx.strings(e.SourceIPs)
		case "user":
			err = userInfo(lx, &e.User, &e.Groups)
		case "impersonatedUser":
			err = userInfo(lx, &e.ImpersonatedUser, nil)
		case "objectRef":
			err = objectRef(lx, e)
		case "responseStatus":
			err = responseStatus(lx, e)
		case "requestObject":
			e.RequestBody, err = lx.raw()
		case "responseObject":
			e.ResponseBody, err = lx.raw()
		case "requestReceivedTimestamp":
			received, err = lx.token()
		case "stageTimestamp":
			stamped, err = lx.token()
		case "timestamp":
			legacy, err = lx.token()
		default:
			err = lx.skip()
		}
		if err != nil {
			return inField(string(key), err)
		}
	}
	for _, t := range []token{received, legacy, stamped} {
		if len(t.raw) > 0 {
			e.Timestamp = decode(t.raw, t.esc)
			break
		}
	}
	settle(e)
	return nil
}

// eventKind checks the kind member: an Event, or nothing. Other kinds (an AdmissionReview,
// an EventList on one line) are a different format and must not be read as an empty event.
func eventKind(lx *lexer) error {
	start := lx.pos
	kind, err := lx.str()
	if err != nil {
		return err
	}
	if kind != "" && kind != "Event" {
		lx.pos = start
		return lx.fail("kind " + quote(kind) + " is not an audit Event")
	}
	return nil
}

func userInfo(lx *lexer, username *string, groups *[]string) error {
	return lx.members(func(key []byte) (err error) {
		switch {
		case string(key) == "username":
			*username, err = lx.word()
		case string(key) == "groups" && groups != nil:
			*groups, err = lx.strings(*groups)
		default:
			err = lx.skip()
		}
		return err
	})
}

func objectRef(lx *lexer, e *Entry) error {
	return lx.members(func(key []byte) (err error) {
		switch string(key) {
		case "resource":
			e.Resource, err = lx.word()
		case "subresource":
			e.Subresource, err = lx.word()
		case "namespace":
			e.Namespace, err = lx.word()
		case "name":
			e.Name, err = lx.word()
		case "apiGroup":
			e.GroupKnown = true
			e.APIGroup, err = lx.word()
		case "apiVersion":
			e.APIVersion, err = lx.word()
		default:
			err = lx.skip()
		}
		return err
	})
}

func responseStatus(lx *lexer, e *Entry) error {
	return lx.members(func(key []byte) (err error) {
		switch string(key) {
		case "code":
			e.ResponseCode, err = lx.integer()
		case "status":
			e.ResponseStatus, err = lx.word()
		case "reason":
			e.ResponseReason, err = lx.word()
		default:
			err = lx.skip()
		}
		return err
	})
}

// quote quotes a value for an error message, cut to a readable length.
func quote(s string) string {
	if len(s) > 64 {
		return strconv.Quote(s[:64]) + "…"
	}
	return strconv.Quote(s)
}
