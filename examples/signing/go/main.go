// Signing recipe for the Partner Swap Service in Go, standard library only.
//
// Signs partner requests (protocol PSS1-HMAC-SHA256, README "Signed requests") and verifies webhook
// deliveries (Standard Webhooks, README "Webhooks"). Copy SignRequest and VerifyWebhook into your code.
//
//	go run . vector <path-to-signing-vector.json>
//	    recompute the published worked example (and its webhook delivery); exit 0 only if all match
//	go run . call <baseUrl> <keyId> <secret> <audience> [user]
//	    send a signed GET <baseUrl>/partner/markup (baseUrl with the API prefix, e.g.
//	    http://localhost:8080/api/v1; audience is the service's PUBLIC_ORIGIN); exit 0 only on 200
package main

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

const scheme = "PSS1-HMAC-SHA256"

// WebhookToleranceSeconds is how far webhook-timestamp may be from the receiver's clock, either way.
const WebhookToleranceSeconds = 300

// CanonicalText is the nine lines joined by LF, no trailing newline. body: the raw bytes sent (empty when none).
func CanonicalText(audience, method, pathAndQuery, timestamp, nonce, keyID, user string, body []byte) string {
	bodyHash := sha256.Sum256(body)
	return strings.Join([]string{
		scheme, audience, strings.ToUpper(method), pathAndQuery, timestamp, nonce, keyID, user, hex.EncodeToString(bodyHash[:]),
	}, "\n")
}

// SignRequest returns the five x-service-* headers. pathAndQuery exactly as sent, with /api/v1.
func SignRequest(secret, keyID, user, audience, method, pathAndQuery string, body []byte, timestamp, nonce string) map[string]string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(CanonicalText(audience, method, pathAndQuery, timestamp, nonce, keyID, user, body)))
	return map[string]string{
		"x-service-key-id":    keyID,
		"x-service-user":      user,
		"x-service-timestamp": timestamp,
		"x-service-nonce":     nonce,
		"x-service-signature": "v1=" + hex.EncodeToString(mac.Sum(nil)),
	}
}

// NewNonce returns 32 lowercase hex characters from crypto/rand.
func NewNonce() string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	return hex.EncodeToString(b)
}

// VerifyWebhook reports whether one v1 signature of the (space-separated) webhook-signature header matches
// and webhook-timestamp is within the tolerance of now. rawBody: the body exactly as received.
func VerifyWebhook(secret, id, timestamp, signatureHeader string, rawBody []byte, now time.Time) bool {
	if !strings.HasPrefix(secret, "whsec_") {
		return false
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return false
	}
	seconds, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil || seconds < 0 {
		return false
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + timestamp + "."))
	mac.Write(rawBody)
	expected := []byte(base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	matches := false
	for _, entry := range strings.Split(signatureHeader, " ") {
		if strings.HasPrefix(entry, "v1,") && hmac.Equal([]byte(strings.TrimPrefix(entry, "v1,")), expected) {
			matches = true
		}
	}
	skew := now.Unix() - seconds
	return matches && skew <= WebhookToleranceSeconds && skew >= -WebhookToleranceSeconds
}

type vector struct {
	Secret           string `json:"secret"`
	KeyID            string `json:"keyId"`
	User             string `json:"user"`
	Audience         string `json:"audience"`
	Method           string `json:"method"`
	PathAndQuery     string `json:"pathAndQuery"`
	Timestamp        string `json:"timestamp"`
	Nonce            string `json:"nonce"`
	Body             string `json:"body"`
	CanonicalText    string `json:"canonicalText"`
	SignatureHeader  string `json:"signatureHeader"`
	WebhookSecret    string `json:"webhookSecret"`
	WebhookID        string `json:"webhookId"`
	WebhookTimestamp string `json:"webhookTimestamp"`
	WebhookBody      string `json:"webhookBody"`
	WebhookSignature string `json:"webhookSignature"`
}

func report(what string, passed bool) bool {
	if passed {
		fmt.Println("ok       " + what)
	} else {
		fmt.Println("MISMATCH " + what)
	}
	return passed
}

func runVector(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var v vector
	if err := json.Unmarshal(data, &v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	body := []byte(v.Body)
	ok := report("canonical text", CanonicalText(v.Audience, v.Method, v.PathAndQuery, v.Timestamp, v.Nonce, v.KeyID, v.User, body) == v.CanonicalText)
	signature := SignRequest(v.Secret, v.KeyID, v.User, v.Audience, v.Method, v.PathAndQuery, body, v.Timestamp, v.Nonce)["x-service-signature"]
	ok = report("request signature "+signature, signature == v.SignatureHeader) && ok
	if v.WebhookSignature == "" {
		fmt.Println("no webhook vector in this file")
	} else {
		seconds, _ := strconv.ParseInt(v.WebhookTimestamp, 10, 64)
		at := time.Unix(seconds, 0)
		raw := []byte(v.WebhookBody)
		ok = report("webhook signature verifies", VerifyWebhook(v.WebhookSecret, v.WebhookID, v.WebhookTimestamp, v.WebhookSignature, raw, at)) && ok
		ok = report("webhook with another body is refused",
			!VerifyWebhook(v.WebhookSecret, v.WebhookID, v.WebhookTimestamp, v.WebhookSignature, append(raw, ' '), at)) && ok
		ok = report("webhook too old is refused",
			!VerifyWebhook(v.WebhookSecret, v.WebhookID, v.WebhookTimestamp, v.WebhookSignature, raw, at.Add(301*time.Second))) && ok
	}
	if ok {
		return 0
	}
	return 1
}

func runCall(baseURL, keyID, secret, audience, user string) int {
	target := strings.TrimRight(baseURL, "/") + "/partner/markup"
	parsed, err := url.Parse(target)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	pathAndQuery := parsed.RequestURI() // the path and query as they go on the request line
	headers := SignRequest(secret, keyID, user, audience, "GET", pathAndQuery, nil, strconv.FormatInt(time.Now().Unix(), 10), NewNonce())
	request, err := http.NewRequest("GET", target, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for name, value := range headers {
		request.Header.Set(name, value)
	}
	client := &http.Client{Timeout: 30 * time.Second}
	response, err := client.Do(request)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer response.Body.Close()
	body, _ := io.ReadAll(response.Body)
	fmt.Printf("GET %s -> %d\n%s\n", pathAndQuery, response.StatusCode, body)
	if response.StatusCode == http.StatusOK {
		return 0
	}
	return 1
}

const usage = `usage:
  vector <path-to-signing-vector.json>
  call <baseUrl> <keyId> <secret> <audience> [user]`

func main() {
	args := os.Args[1:]
	switch {
	case len(args) == 2 && args[0] == "vector":
		os.Exit(runVector(args[1]))
	case (len(args) == 5 || len(args) == 6) && args[0] == "call":
		user := "customer-1"
		if len(args) == 6 {
			user = args[5]
		}
		os.Exit(runCall(args[1], args[2], args[3], args[4], user))
	default:
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
}
