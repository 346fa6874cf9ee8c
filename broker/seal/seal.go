package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// KeySize is the AES-256 key length in bytes.
const KeySize = 32

// version prefixes every sealed state so a future format can coexist during a rollout.
const version = "s1"

// ErrRejected is the one error Open returns for state that is tampered, expired, foreign,
// mismatched, sealed under an unknown key or malformed. Callers must not tell these apart to the
// client; Reason on a *Rejection says which, for logs only.
var ErrRejected = errors.New("requestState rejected")

// Rejection wraps ErrRejected with the reason, for the broker's own log.
type Rejection struct{ Reason string }

func (r *Rejection) Error() string { return "requestState rejected: " + r.Reason }

// Is makes errors.Is(err, ErrRejected) true.
func (r *Rejection) Is(target error) bool { return target == ErrRejected }

func reject(format string, args ...any) error {
	return &Rejection{Reason: fmt.Sprintf(format, args...)}
}

// Key is one named AES-256 key. The ID travels in clear with the state so Open finds the key.
type Key struct {
	ID     string
	Secret []byte
}

// Keyring seals with its first key and opens with any.
type Keyring struct {
	keys  []Key
	aeads map[string]cipher.AEAD
	now   func() time.Time
}

// NewKeyring builds a keyring; keys[0] seals. IDs must be unique, non-empty and free of '.'.
func NewKeyring(keys ...Key) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("building the requestState keyring: no keys")
	}
	k := &Keyring{keys: keys, aeads: map[string]cipher.AEAD{}, now: time.Now}
	for _, key := range keys {
		if key.ID == "" || strings.Contains(key.ID, ".") {
			return nil, fmt.Errorf("building the requestState keyring: key id %q must be non-empty and contain no '.'", key.ID)
		}
		if len(key.Secret) != KeySize {
			return nil, fmt.Errorf("building the requestState keyring: key %q is %d bytes, want %d", key.ID, len(key.Secret), KeySize)
		}
		if _, dup := k.aeads[key.ID]; dup {
			return nil, fmt.Errorf("building the requestState keyring: duplicate key id %q", key.ID)
		}
		block, err := aes.NewCipher(key.Secret)
		if err != nil {
			return nil, fmt.Errorf("building the requestState keyring: %w", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("building the requestState keyring: %w", err)
		}
		k.aeads[key.ID] = aead
	}
	return k, nil
}

// GenerateKey returns a fresh random key with the given id; for single-process use and tests
// (replicas behind one load balancer must share configured keys).
func GenerateKey(id string) Key {
	b := make([]byte, KeySize)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms
	return Key{ID: id, Secret: b}
}

// ParseKeys reads "id:hex" pairs separated by commas, the first sealing — the form of the
// broker's --state-keys flag and BROKER_STATE_KEYS variable.
func ParseKeys(s string) ([]Key, error) {
	var out []Key
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		id, hx, ok := strings.Cut(part, ":")
		if !ok {
			return nil, fmt.Errorf("parsing requestState keys: %q is not id:hex", part)
		}
		secret, err := hex.DecodeString(hx)
		if err != nil {
			return nil, fmt.Errorf("parsing requestState key %q: %w", id, err)
		}
		out = append(out, Key{ID: id, Secret: secret})
	}
	if len(out) == 0 {
		return nil, errors.New("parsing requestState keys: none given")
	}
	return out, nil
}

// Binding is what a state is bound to; Open compares every field with the retry's.
type Binding struct {
	// Tool is the tool name; it is the AEAD's additional data, so state for one tool does not
	// even decrypt as another's.
	Tool string
	// Tenant and Subject are the authenticated principal.
	Tenant  string
	Subject string
	// RequestDigest is a digest of the originating request's salient params.
	RequestDigest string
}

// envelope is the sealed plaintext.
type envelope struct {
	Tenant  string          `json:"t"`
	Subject string          `json:"s"`
	Request string          `json:"r"`
	Expires int64           `json:"e"`
	Data    json.RawMessage `json:"d,omitempty"`
}

// Seal encrypts data bound to b, valid for ttl.
func (k *Keyring) Seal(b Binding, data any, ttl time.Duration) (string, error) {
	raw, err := json.Marshal(data)
	if err != nil {
		return "", fmt.Errorf("sealing requestState: encoding data: %w", err)
	}
	plain, err := json.Marshal(envelope{Tenant: b.Tenant, Subject: b.Subject, Request: b.RequestDigest, Expires: k.now().Add(ttl).UnixMilli(), Data: raw})
	if err != nil {
		return "", fmt.Errorf("sealing requestState: %w", err)
	}
	key := k.keys[0]
	aead := k.aeads[key.ID]
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce)
	ct := aead.Seal(nonce, nonce, plain, []byte(b.Tool))
	return version + "." + key.ID + "." + base64.RawURLEncoding.EncodeToString(ct), nil
}

// Open verifies and decrypts state for the retry described by b and decodes its data into out.
// Any failure is a *Rejection (errors.Is ErrRejected).
func (k *Keyring) Open(state string, b Binding, out any) error {
	ver, rest, ok := strings.Cut(state, ".")
	if !ok || ver != version {
		return reject("unknown format")
	}
	id, body, ok := strings.Cut(rest, ".")
	if !ok {
		return reject("malformed")
	}
	aead, ok := k.aeads[id]
	if !ok {
		return reject("sealed under unknown key %q", id)
	}
	ct, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil || len(ct) < aead.NonceSize() {
		return reject("malformed")
	}
	plain, err := aead.Open(nil, ct[:aead.NonceSize()], ct[aead.NonceSize():], []byte(b.Tool))
	if err != nil {
		return reject("fails authentication (tampered, or sealed for another tool)")
	}
	var env envelope
	if err := json.Unmarshal(plain, &env); err != nil {
		return reject("undecodable")
	}
	switch {
	case k.now().UnixMilli() >= env.Expires:
		return reject("expired")
	case subtle.ConstantTimeCompare([]byte(env.Tenant), []byte(b.Tenant)) != 1 ||
		subtle.ConstantTimeCompare([]byte(env.Subject), []byte(b.Subject)) != 1:
		return reject("presented by another principal")
	case subtle.ConstantTimeCompare([]byte(env.Request), []byte(b.RequestDigest)) != 1:
		return reject("attached to a different request")
	}
	if out != nil && len(env.Data) > 0 {
		if err := json.Unmarshal(env.Data, out); err != nil {
			return reject("undecodable data")
		}
	}
	return nil
}
