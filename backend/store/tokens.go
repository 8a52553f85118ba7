package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// TokenRepo stores access tokens by hash, so a leaked database does not leak
// usable credentials.
type TokenRepo struct{ db *gorm.DB }

// HashToken is the one definition of Token.Hash: hex SHA-256 of the secret.
// A fast hash is enough because secrets are long random strings.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// Create stores a token. Name and Hash must be set and unique. An empty
// Role makes a client token; an admin token manages every server, so it
// cannot be limited to some.
func (r TokenRepo) Create(ctx context.Context, t Token) (Token, error) {
	t.Name = strings.TrimSpace(t.Name)
	if t.Name == "" {
		return Token{}, fmt.Errorf("%w: a token needs a name", ErrInvalid)
	}
	if len(t.Hash) != sha256.Size*2 {
		return Token{}, fmt.Errorf("%w: token %q: hash must be hex SHA-256 (use HashToken)", ErrInvalid, t.Name)
	}
	if t.Role == "" {
		t.Role = RoleClient
	}
	if !t.Role.Valid() {
		return Token{}, fmt.Errorf("%w: token %q: role %q: want %s or %s", ErrInvalid, t.Name, t.Role, RoleClient, RoleAdmin)
	}
	if t.Role == RoleAdmin && len(t.Servers) > 0 {
		return Token{}, fmt.Errorf("%w: token %q: an admin token manages every server, so it cannot be limited to some", ErrInvalid, t.Name)
	}
	t.ID = 0
	if err := r.db.WithContext(ctx).Create(&t).Error; err != nil {
		return Token{}, translate(err, "token", t.Name)
	}
	return t, nil
}

// List returns all tokens, revoked ones included, ordered by name.
func (r TokenRepo) List(ctx context.Context) ([]Token, error) {
	var out []Token
	if err := r.db.WithContext(ctx).Order("name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return out, nil
}

// Get returns the named token.
func (r TokenRepo) Get(ctx context.Context, name string) (Token, error) {
	var t Token
	err := r.db.WithContext(ctx).Where("name = ?", name).Take(&t).Error
	return t, translate(err, "token", name)
}

// Lookup finds the token whose secret hashes to hash. It returns revoked
// tokens too; the caller checks RevokedAt so it can say why access failed.
func (r TokenRepo) Lookup(ctx context.Context, hash string) (Token, error) {
	var t Token
	err := r.db.WithContext(ctx).Where("hash = ?", hash).Take(&t).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return Token{}, fmt.Errorf("token: %w", ErrNotFound)
	}
	if err != nil {
		return Token{}, fmt.Errorf("token lookup: %w", err)
	}
	return t, nil
}

// Revoke marks the named token revoked at the given time; revoking twice
// keeps the first time.
func (r TokenRepo) Revoke(ctx context.Context, name string, at time.Time) error {
	return r.setTime(ctx, name, "revoked_at", at, true)
}

// Touch records that the token was used at the given time.
func (r TokenRepo) Touch(ctx context.Context, name string, at time.Time) error {
	return r.setTime(ctx, name, "last_used_at", at, false)
}

func (r TokenRepo) setTime(ctx context.Context, name, col string, at time.Time, onlyIfNull bool) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Token
		if err := tx.Where("name = ?", name).Take(&t).Error; err != nil {
			return translate(err, "token", name)
		}
		q := tx.Model(&Token{}).Where("id = ?", t.ID)
		if onlyIfNull {
			q = q.Where(col + " IS NULL")
		}
		return q.Update(col, at.UTC()).Error
	})
}

// Delete removes the named token for good.
func (r TokenRepo) Delete(ctx context.Context, name string) error {
	res := r.db.WithContext(ctx).Where("name = ?", name).Delete(&Token{})
	if res.Error != nil {
		return translate(res.Error, "token", name)
	}
	if res.RowsAffected == 0 {
		return notFound("token", name)
	}
	return nil
}

// SetRoles replaces the named token's own roles (none: nil); the caller
// checks them (auth.CheckRoles).
func (r TokenRepo) SetRoles(ctx context.Context, name string, roles []string) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Token
		if err := tx.Where("name = ?", name).Take(&t).Error; err != nil {
			return translate(err, "token", name)
		}
		t.Roles = roles
		// Select: no roles must be written (as JSON null), not skipped.
		return tx.Model(&t).Select("roles").Updates(&t).Error
	})
}

// SetServers replaces the servers the named token may use (none: all).
func (r TokenRepo) SetServers(ctx context.Context, name string, servers []string) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Token
		if err := tx.Where("name = ?", name).Take(&t).Error; err != nil {
			return translate(err, "token", name)
		}
		t.Servers = servers
		// Select: a nil scope must be written (as JSON null), not skipped.
		return tx.Model(&t).Select("servers").Updates(&t).Error
	})
}
