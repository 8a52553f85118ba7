package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestSettings(t *testing.T) {
	forEachEngine(t, func(t *testing.T, open opener) {
		s := open(t)
		ctx := context.Background()
		r := s.Settings()

		if v, ok, err := r.Get(ctx, "port"); err != nil || ok || v != "" {
			t.Fatalf("Get unset = %q %v %v", v, ok, err)
		}
		steps := []struct{ key, value string }{
			{"port", "3282"},
			{"auth", "on"},
			{"port", "4000"}, // upsert
			{"separator", ""},
		}
		for _, st := range steps {
			if err := r.Set(ctx, st.key, st.value); err != nil {
				t.Fatalf("Set(%q): %v", st.key, err)
			}
			if v, ok, err := r.Get(ctx, st.key); err != nil || !ok || v != st.value {
				t.Fatalf("Get(%q) = %q %v %v, want %q", st.key, v, ok, err, st.value)
			}
		}
		all, err := r.All(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]string{"port": "4000", "auth": "on", "separator": ""}; !reflect.DeepEqual(all, want) {
			t.Errorf("All = %v, want %v", all, want)
		}
		if err := r.Delete(ctx, "auth"); err != nil {
			t.Fatal(err)
		}
		if _, ok, _ := r.Get(ctx, "auth"); ok {
			t.Error("auth still set after Delete")
		}
		if err := r.Set(ctx, "", "x"); !errors.Is(err, ErrInvalid) {
			t.Errorf("Set empty key: %v, want ErrInvalid", err)
		}
	})
}
