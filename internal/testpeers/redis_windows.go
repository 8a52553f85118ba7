//go:build windows

package testpeers

import "testing"

// RedisServer is a throwaway redis-server (not started on Windows: the
// team-mode tests run on Linux).
type RedisServer struct{ URL, Addr string }

// StartRedis skips the test: no redis-server on Windows.
func StartRedis(t testing.TB) string { return StartRedisServer(t).URL }

// StartRedisServer skips the test: no redis-server on Windows.
func StartRedisServer(t testing.TB) *RedisServer {
	t.Helper()
	missing(t, "redis-server (team mode is tested on Linux)")
	return &RedisServer{}
}

func (s *RedisServer) Stop()   {}
func (s *RedisServer) Freeze() {}
func (s *RedisServer) Thaw()   {}
