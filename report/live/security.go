package live

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"strings"
)

// contentSecurityPolicy allows nothing from another origin: the
// stylesheet and the script from this server, images from it and from
// data: URIs (a report's embedded replay), fetches and event streams to
// it, forms to it; no inline script, no frame, no plugin.
const contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// tokenCookie carries the token after the first visit.
const tokenCookie = "policyevolve-token"

// guard wraps h with what every answer needs: read-only methods, a Host
// that names loopback (unless AnyHost), the token (when set), and the
// security headers.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cross-Origin-Opener-Policy", "same-origin")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			hd.Set("Allow", "GET, HEAD")
			http.Error(w, "read-only: this server answers GET and HEAD only", http.StatusMethodNotAllowed)
			return
		}
		if !s.opt.AnyHost && !loopbackHost(r.Host) {
			http.Error(w, "this server answers requests for localhost or a loopback address only (Host "+r.Host+")", http.StatusMisdirectedRequest)
			return
		}
		if s.opt.Token != "" && !s.authorized(w, r) {
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authorized checks the token; it answers the request itself when it is
// missing or wrong, and when it came as ?token= (with a cookie that holds
// it and a redirect to the same URL without it, so that it leaves the
// address bar).
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	q := r.URL.Query()
	if t := q.Get("token"); t != "" {
		if !s.tokenIs(t) {
			http.Error(w, "wrong token", http.StatusUnauthorized)
			return false
		}
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: t, Path: "/", HttpOnly: true, Secure: r.TLS != nil,
			SameSite: http.SameSiteStrictMode})
		q.Del("token")
		u := *r.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	if c, err := r.Cookie(tokenCookie); err == nil && s.tokenIs(c.Value) {
		return true
	}
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenIs(t) {
		return true
	}
	http.Error(w, "a token is needed: open the address policyevolve serve printed (it ends in ?token=…)", http.StatusUnauthorized)
	return false
}

func (s *Server) tokenIs(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.opt.Token)) == 1
}

// loopbackHost: a Host header (host or host:port) naming localhost or a
// loopback address.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckAddr checks an address to listen on: a loopback address (or
// localhost) is always fine; any other (an empty host or 0.0.0.0 listen
// on every interface) needs public set, saying so on purpose, and a
// token. It reports whether the address is loopback.
func CheckAddr(addr string, public bool, token string) (loopback bool, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, &AddrError{Addr: addr, Why: "want HOST:PORT, e.g. 127.0.0.1:8080"}
	}
	if loopbackHost(host) && host != "" {
		return true, nil
	}
	switch {
	case !public:
		return false, &AddrError{Addr: addr, Why: "not a loopback address: anyone who can reach it would read the store; " +
			"pass --public (and --token) to serve it beyond this machine, or use 127.0.0.1"}
	case len(token) < MinTokenLength:
		return false, &AddrError{Addr: addr, Why: fmt.Sprintf("--public needs a token of %d characters or more (--token or "+
			"$POLICYEVOLVE_SERVE_TOKEN) that every request must carry", MinTokenLength)}
	}
	return false, nil
}

// MinTokenLength is the shortest token a public server accepts: 16
// random characters are beyond guessing over a network.
const MinTokenLength = 16

// CheckToken refuses a token that could not be used: one shorter than
// MinTokenLength, or one holding a character other than a letter, a
// digit or one of "-._~". Those are the characters a URL carries as
// they are and a cookie holds unquoted; a ';', ',', '"', '\' or a space
// would be dropped or quoted by the cookie of the first visit, so the
// address printed at the start would never let anyone in.
func CheckToken(token string) error {
	if len(token) < MinTokenLength {
		return fmt.Errorf("must be %d characters or more", MinTokenLength)
	}
	for _, r := range token {
		if !tokenChar(r) {
			return fmt.Errorf("may hold only letters, digits and - . _ ~ (%q cannot travel in a URL and a cookie as it is)", r)
		}
	}
	return nil
}

func tokenChar(r rune) bool {
	return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-._~", r)
}

// AddrError is an address serve refuses to listen on, and why.
type AddrError struct{ Addr, Why string }

func (e *AddrError) Error() string { return "address " + e.Addr + ": " + e.Why }
