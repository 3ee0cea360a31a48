package auditlog

// providerEntry reads one element of the entries array of an OASIS audit_log observation (SI
// provider guide §4.5: timestamp, verb, resource, namespace, user, request_body; reference
// providers add auditID, stage, subresource, name, request_uri, response_code, source_ips,
// user_agent and raw, the Kubernetes event the entry was made from). Members the provider set
// win; raw fills in what they leave out.
func providerEntry(lx *lexer, e *Entry, raw *Entry) error {
	if err := lx.beginObject(); err != nil {
		return err
	}
	hasRaw := false
	for first := true; ; first = false {
		key, more, err := lx.nextKey(first)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		switch string(key) {
		case "timestamp":
			e.Timestamp, err = lx.str()
		case "auditID":
			e.AuditID, err = lx.str()
		case "stage":
			e.Stage, err = lx.word()
		case "verb":
			e.Verb, err = lx.word()
		case "resource":
			e.Resource, err = lx.word()
		case "subresource":
			e.Subresource, err = lx.word()
		case "namespace":
			e.Namespace, err = lx.word()
		case "name":
			e.Name, err = lx.word()
		case "user":
			err = providerUser(lx, e)
		case "request_uri":
			e.RequestURI, err = lx.str()
		case "request_body":
			e.RequestBody, err = requestBody(lx)
		case "response_code":
			e.ResponseCode, err = lx.integer()
		case "source_ips":
			e.SourceIPs, err = lx.strings(e.SourceIPs)
		case "user_agent":
			e.UserAgent, err = lx.word()
		case "raw":
			raw.reset()
			hasRaw = lx.peek() != 'n'
			if hasRaw {
				err = event(lx, raw)
			} else {
				err = lx.literal("null")
			}
		default:
			err = lx.skip()
		}
		if err != nil {
			return inField(string(key), err)
		}
	}
	normalizeResource(e)
	settle(e)
	if hasRaw {
		fillFrom(e, raw)
	}
	return nil
}

// providerUser reads the user member: a username string, or an object like the Kubernetes
// event's user ({username, groups}).
func providerUser(lx *lexer, e *Entry) error {
	if lx.peek() == '{' {
		return userInfo(lx, &e.User, &e.Groups)
	}
	var err error
	e.User, err = lx.word()
	return err
}

// requestBody reads request_body: a string holding the body (as the reference providers send
// it), or the body itself as a JSON value. An empty string means no body.
func requestBody(lx *lexer) ([]byte, error) {
	if lx.peek() != '"' {
		return lx.raw()
	}
	raw, esc, err := lx.rawString()
	if err != nil || len(raw) == 0 {
		return nil, err
	}
	if !esc {
		return raw, nil
	}
	return []byte(decode(raw, true)), nil
}

// fillFrom completes e, settled, with what the raw Kubernetes event (settled too) recorded
// and the provider's own members left out.
func fillFrom(e, raw *Entry) {
	fill := fillEmpty
	fill(&e.AuditID, raw.AuditID)
	fill(&e.Timestamp, raw.Timestamp)
	fill(&e.Stage, raw.Stage)
	fill(&e.Level, raw.Level)
	fill(&e.Verb, raw.Verb)
	fill(&e.APIVersion, raw.APIVersion)
	fill(&e.Resource, raw.Resource)
	fill(&e.Subresource, raw.Subresource)
	fill(&e.Namespace, raw.Namespace)
	fill(&e.Name, raw.Name)
	fill(&e.User, raw.User)
	fill(&e.ImpersonatedUser, raw.ImpersonatedUser)
	fill(&e.UserAgent, raw.UserAgent)
	if e.RequestURI == "" {
		e.RequestURI, e.DryRun = raw.RequestURI, raw.DryRun
	}
	fill(&e.ResponseStatus, raw.ResponseStatus)
	fill(&e.ResponseReason, raw.ResponseReason)
	if !e.GroupKnown {
		e.APIGroup, e.GroupKnown = raw.APIGroup, raw.GroupKnown
	}
	if e.ResponseCode == 0 {
		e.ResponseCode = raw.ResponseCode
	}
	if len(e.Groups) == 0 {
		e.Groups = append(e.Groups, raw.Groups...)
	}
	if len(e.SourceIPs) == 0 {
		e.SourceIPs = append(e.SourceIPs, raw.SourceIPs...)
	}
	if e.RequestBody == nil {
		e.RequestBody = raw.RequestBody
	}
	if e.ResponseBody == nil {
		e.ResponseBody = raw.ResponseBody
	}
}
