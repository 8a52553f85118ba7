//go:build !mattn

package store

import "time"

// appendLogTime appends the text modernc.org/sqlite stores for a bound
// time.Time under the store's DSN (no _time_format): t.String(), which
// for a time in UTC without a monotonic reading (LogRepo.Insert passes
// t.UTC()) is "2006-01-02 15:04:05.999999999 +0000 UTC", the fraction
// without its trailing zeros and gone when zero. Written out here because
// time.Format interprets its layout for every row: this is about a fifth
// of its cost. Anything else (another zone, a year of more than four
// digits) takes t.String() itself. TestAppendLogTimeIsTimeString holds it
// to t.String().
func appendLogTime(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	if t.Location() != time.UTC || year < 0 || year > 9999 {
		return append(b, t.String()...)
	}
	hour, minute, sec := t.Clock()
	b = appendDigits(b, year, 4)
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, ' ')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	if ns := t.Nanosecond(); ns != 0 {
		digits := 9
		for ns%10 == 0 {
			ns /= 10
			digits--
		}
		b = append(b, '.')
		b = appendDigits(b, ns, digits)
	}
	return append(b, " +0000 UTC"...)
}

// appendDigits appends v (>= 0) in exactly width digits, zero-padded.
func appendDigits(b []byte, v, width int) []byte {
	var buf [9]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(b, buf[:width]...)
}
