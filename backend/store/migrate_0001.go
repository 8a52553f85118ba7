package store

import (
	"time"

	"gorm.io/gorm"
)

// Frozen schema of migration 0001. Do not edit: change the schema in a new
// migration with its own structs.

type m0001Server struct {
	ID             uint   `gorm:"primaryKey"`
	Name           string `gorm:"uniqueIndex;not null"`
	Transport      string `gorm:"not null"`
	Command        string
	Args           string `gorm:"type:text"`
	Env            string `gorm:"type:text"`
	Cwd            string
	URL            string
	Headers        string `gorm:"type:text"`
	Enabled        bool
	PrefixMode     string
	TimeoutSeconds int
	DisabledTools  string `gorm:"type:text"`
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (m0001Server) TableName() string { return "servers" }

type m0001Setting struct {
	Key       string `gorm:"primaryKey"`
	Value     string `gorm:"not null"`
	UpdatedAt time.Time
}

func (m0001Setting) TableName() string { return "settings" }

type m0001Hook struct {
	ID             uint   `gorm:"primaryKey"`
	Name           string `gorm:"uniqueIndex;not null"`
	Enabled        bool
	ExecutionOrder int
	HookType       string `gorm:"not null"`
	Script         string `gorm:"type:text"`
	FailClosed     bool
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

func (m0001Hook) TableName() string { return "hooks" }

type m0001Token struct {
	ID         uint   `gorm:"primaryKey"`
	Name       string `gorm:"uniqueIndex;not null"`
	Hash       string `gorm:"uniqueIndex;not null"`
	Prefix     string
	Servers    string `gorm:"type:text"`
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
}

func (m0001Token) TableName() string { return "tokens" }

type m0001RequestLog struct {
	ID         uint      `gorm:"primaryKey"`
	Time       time.Time `gorm:"index;not null"`
	Client     string
	Server     string `gorm:"index"`
	Method     string
	Target     string
	DurationMs float64
	Status     string
	Error      string `gorm:"type:text"`
	Request    string `gorm:"type:text"`
	Response   string `gorm:"type:text"`
}

func (m0001RequestLog) TableName() string { return "request_logs" }

func migrate0001(tx *gorm.DB) error {
	return tx.Migrator().CreateTable(&m0001Server{}, &m0001Setting{}, &m0001Hook{}, &m0001Token{}, &m0001RequestLog{})
}
