package pyregex

import (
	"sync"
	"time"
)

// DefaultCacheSize is the number of patterns a Cache keeps when no other
// size is given.
const DefaultCacheSize = 256

// Cache keeps compiled patterns, keyed by pattern and flags, so that a
// pattern used on every span is compiled once. Compile errors are cached
// too. When full, it evicts an arbitrary entry. It is safe for concurrent
// use.
type Cache struct {
	size    int
	timeout time.Duration

	mu      sync.Mutex
	entries map[cacheKey]cacheEntry
}

type cacheKey struct {
	pattern string
	flags   Flags
}

type cacheEntry struct {
	re  *Regexp
	err error
}

// NewCache returns a cache of at most size patterns (DefaultCacheSize when
// size <= 0) whose patterns time out after timeout (DefaultTimeout when
// timeout <= 0).
func NewCache(size int, timeout time.Duration) *Cache {
	if size <= 0 {
		size = DefaultCacheSize
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &Cache{size: size, timeout: timeout, entries: make(map[cacheKey]cacheEntry, size)}
}

// Compile returns the compiled pattern, from the cache when it is there.
// A pattern longer than MaxPatternBytes is refused before the cache.
func (c *Cache) Compile(pattern string, flags Flags) (*Regexp, error) {
	if err := checkSize(pattern); err != nil {
		return nil, err // not cached: the key alone would be too large
	}
	key := cacheKey{pattern: pattern, flags: flags}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return e.re, e.err
	}
	// Compile outside the lock: two goroutines may compile the same new
	// pattern at once, which is harmless.
	re, err := Compile(pattern, flags, c.timeout)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, present := c.entries[key]; !present && len(c.entries) >= c.size {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = cacheEntry{re: re, err: err}
	return re, err
}

// Len is the number of patterns in the cache.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}
