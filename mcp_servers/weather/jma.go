package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
)

// The Japan Meteorological Agency's public (unofficial, undocumented)
// forecast JSON, as its own pages use it:
//
//	<base>/common/const/area.json                 every area: centers, offices, class10s, …
//	<base>/forecast/data/forecast/<office>.json   an office's forecast: [short-term, weekly]
//
// with <base> https://www.jma.go.jp/bosai.

// DefaultBaseURL is the JMA's forecast service.
const DefaultBaseURL = "https://www.jma.go.jp/bosai"

// ErrUpstream marks a failure of the JMA's service (down, slow, bad data).
var ErrUpstream = errors.New("the Japan Meteorological Agency's forecast service failed")

// areaEntry is one area of area.json.
type areaEntry struct {
	Name       string   `json:"name"`
	EnName     string   `json:"enName"`
	OfficeName string   `json:"officeName,omitempty"`
	Parent     string   `json:"parent,omitempty"`
	Children   []string `json:"children,omitempty"`
}

type areaFile struct {
	Centers  map[string]areaEntry `json:"centers"`
	Offices  map[string]areaEntry `json:"offices"`
	Class10s map[string]areaEntry `json:"class10s"`
}

// Area is a place a forecast can be asked for: a prefecture's forecast
// office (Kind "office") or one of its forecast regions ("region").
type Area struct {
	Code   string `json:"code"`
	Name   string `json:"name"`
	EnName string `json:"enName"`
	Kind   string `json:"kind"`
	Office string `json:"office"` // the office whose forecast covers it
}

// JMA reads the JMA's forecast JSON.
type JMA struct {
	base   string
	client *http.Client

	mu      sync.Mutex
	areas   []Area
	fetched time.Time
}

// areaTTL is how long the area list is kept: it changes a few times a year.
const areaTTL = 6 * time.Hour

func NewJMA(base string, client *http.Client) *JMA {
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second}
	}
	return &JMA{base: strings.TrimRight(base, "/"), client: client}
}

func (j *JMA) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, j.base+path, nil)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUpstream, err)
	}
	req.Header.Set("User-Agent", "weather-mcp (MCP Router sample server)")
	resp, err := j.client.Do(req)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUpstream, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w: GET %s answered %s", ErrUpstream, path, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUpstream, err)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("%w: GET %s: not the JSON expected: %v", ErrUpstream, path, err)
	}
	return nil
}

// Areas returns every office and forecast region, by code.
func (j *JMA) Areas(ctx context.Context) ([]Area, error) {
	j.mu.Lock()
	if j.areas != nil && time.Since(j.fetched) < areaTTL {
		defer j.mu.Unlock()
		return j.areas, nil
	}
	j.mu.Unlock()
	var f areaFile
	if err := j.get(ctx, "/common/const/area.json", &f); err != nil {
		return nil, err
	}
	if len(f.Offices) == 0 {
		return nil, fmt.Errorf("%w: area.json lists no offices", ErrUpstream)
	}
	var out []Area
	for code, o := range f.Offices {
		out = append(out, Area{Code: code, Name: o.Name, EnName: o.EnName, Kind: "office", Office: code})
	}
	for code, c := range f.Class10s {
		if _, ok := f.Offices[c.Parent]; !ok {
			continue
		}
		out = append(out, Area{Code: code, Name: c.Name, EnName: c.EnName, Kind: "region", Office: c.Parent})
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Code < out[b].Code })
	j.mu.Lock()
	j.areas, j.fetched = out, time.Now()
	j.mu.Unlock()
	return out, nil
}

// fold makes names comparable: lower case, no spaces, full-width letters
// and digits as ASCII.
func fold(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'Ａ' && r <= 'Ｚ', r >= 'ａ' && r <= 'ｚ', r >= '０' && r <= '９':
			r -= 0xFEE0
		case unicode.IsSpace(r), r == '-', r == '_':
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// trimSuffixes drops what people leave off a Japanese area name:
// 東京都 → 東京, 大阪府 → 大阪, 石狩地方 → 石狩, "Tokyo Prefecture" → tokyo.
func trimSuffixes(s string) string {
	for _, suf := range []string{"地方", "都", "府", "県", "prefecture", "region"} {
		if t := strings.TrimSuffix(s, suf); t != s && t != "" {
			return t
		}
	}
	return s
}

// Find lists the areas whose code, Japanese or English name matches q:
// exact matches (names also without 都/府/県/地方) first, then partial
// ones. An empty q lists the offices.
func Find(areas []Area, q string) []Area {
	fq := fold(strings.TrimSpace(q))
	var exact, partial []Area
	for _, a := range areas {
		if fq == "" {
			if a.Kind == "office" {
				exact = append(exact, a)
			}
			continue
		}
		names := []string{fold(a.Name), fold(a.EnName)}
		switch {
		case a.Code == fq || names[0] == fq || names[1] == fq ||
			trimSuffixes(names[0]) == trimSuffixes(fq) || trimSuffixes(names[1]) == trimSuffixes(fq):
			exact = append(exact, a)
		case strings.Contains(names[0], fq) || (len(fq) >= 2 && strings.Contains(names[1], fq)):
			partial = append(partial, a)
		}
	}
	// Offices before regions among equals: "Tokyo" is the prefecture.
	byKind := func(list []Area) {
		sort.SliceStable(list, func(a, b int) bool { return list[a].Kind == "office" && list[b].Kind != "office" })
	}
	byKind(exact)
	byKind(partial)
	return append(exact, partial...)
}

// forecastFile is an office's forecast: [0] the next three days, [1] the week.
type forecastFile []struct {
	PublishingOffice string `json:"publishingOffice"`
	ReportDatetime   string `json:"reportDatetime"`
	TimeSeries       []struct {
		TimeDefines []string `json:"timeDefines"`
		Areas       []struct {
			Area struct {
				Name string `json:"name"`
				Code string `json:"code"`
			} `json:"area"`
			Weathers []string `json:"weathers"`
			Winds    []string `json:"winds"`
			Pops     []string `json:"pops"`
			Temps    []string `json:"temps"`
		} `json:"areas"`
	} `json:"timeSeries"`
}

// Forecast is the short-term forecast of one region.
type Forecast struct {
	Office   string `json:"office"`
	Region   string `json:"region"`
	Code     string `json:"code"`
	Reported string `json:"reported"`
	Days     []Day  `json:"days"`
	Pops     []Pop  `json:"chanceOfRain"`
	Temps    []Temp `json:"temperatures"`
}

// Day is one day's weather.
type Day struct {
	Date    string `json:"date"`
	Weather string `json:"weather"`
	Wind    string `json:"wind,omitempty"`
}

// Pop is the chance of rain in a six-hour period from Time.
type Pop struct {
	Time    string `json:"time"`
	Percent string `json:"percent"`
}

// Temp is a forecast temperature at a station.
type Temp struct {
	Station string `json:"station"`
	Time    string `json:"time"`
	Celsius string `json:"celsius"`
}

// Forecasts reads an office's forecast: every region of it, or only
// region when given.
func (j *JMA) Forecasts(ctx context.Context, office, region string) ([]Forecast, error) {
	var f forecastFile
	if err := j.get(ctx, "/forecast/data/forecast/"+office+".json", &f); err != nil {
		return nil, err
	}
	if len(f) == 0 || len(f[0].TimeSeries) == 0 {
		return nil, fmt.Errorf("%w: the forecast of %s has no time series", ErrUpstream, office)
	}
	short := f[0]
	ws := short.TimeSeries[0]
	var out []Forecast
	for i, a := range ws.Areas {
		if region != "" && a.Area.Code != region {
			continue
		}
		fc := Forecast{Office: short.PublishingOffice, Region: a.Area.Name, Code: a.Area.Code, Reported: short.ReportDatetime}
		for k, t := range ws.TimeDefines {
			d := Day{Date: date(t)}
			if k < len(a.Weathers) {
				d.Weather = spaces(a.Weathers[k])
			}
			if k < len(a.Winds) {
				d.Wind = spaces(a.Winds[k])
			}
			fc.Days = append(fc.Days, d)
		}
		if len(short.TimeSeries) > 1 && i < len(short.TimeSeries[1].Areas) {
			ps := short.TimeSeries[1]
			for k, t := range ps.TimeDefines {
				if k < len(ps.Areas[i].Pops) && ps.Areas[i].Pops[k] != "" {
					fc.Pops = append(fc.Pops, Pop{Time: t, Percent: ps.Areas[i].Pops[k]})
				}
			}
		}
		if len(short.TimeSeries) > 2 && i < len(short.TimeSeries[2].Areas) {
			ts := short.TimeSeries[2]
			st := ts.Areas[i]
			for k, t := range ts.TimeDefines {
				if k < len(st.Temps) && st.Temps[k] != "" {
					fc.Temps = append(fc.Temps, Temp{Station: st.Area.Name, Time: t, Celsius: st.Temps[k]})
				}
			}
		}
		out = append(out, fc)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the forecast of %s has no region %s", ErrUpstream, office, region)
	}
	return out, nil
}

// date is the date part of an RFC 3339 time.
func date(t string) string {
	if len(t) >= 10 {
		return t[:10]
	}
	return t
}

// spaces turns the JMA's ideographic spaces into plain ones.
func spaces(s string) string { return strings.ReplaceAll(s, "\u3000", " ") }
