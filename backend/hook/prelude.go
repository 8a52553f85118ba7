package hook

import "github.com/dop251/goja"

// prelude runs once in every new runtime, before the user's program. It
//
//   - bounds the builtins that run as one uninterruptible Go loop or make one
//     large allocation (goja checks vm.Interrupt only between JS
//     instructions, so `Array(1e9).fill(0)` or `'x'.repeat(2**30)` would
//     otherwise run for seconds and allocate gigabytes before a timeout could
//     land): every Array.prototype method checks this.length, and the string
//     builders check the length of what they would build;
//   - removes what hooks do not need and that allocates raw memory in one step
//     (ArrayBuffer, typed arrays, DataView, SharedArrayBuffer, Atomics, WeakRef,
//     FinalizationRegistry);
//   - freezes every object reachable from the global object and the hidden
//     intrinsics (iterator and generator prototypes), and then the global
//     object itself, so a script cannot change builtins for later calls.
//
// It is a function taking the limits and the host utilities, and returns the
// untouched JSON.parse for the host's own use.
const prelude = `(function (MAX_ARRAY, MAX_STRING, host) {
'use strict';
const G = globalThis;
const apply = Reflect.apply, ownKeys = Reflect.ownKeys, getProto = Object.getPrototypeOf,
  gopd = Object.getOwnPropertyDescriptor, defProp = Object.defineProperty, freeze = Object.freeze,
  isArray = Array.isArray, RangeErr = RangeError, floor = Math.floor, min = Math.min,
  jsonParse = JSON.parse, jsonStringify = JSON.stringify, StringCtor = String, isRegExp = (r) => r instanceof RegExp;
const lenOf = (o) => {
  if (o === null || o === undefined) return 0;
  const n = +o.length;
  return n > 0 ? min(floor(n), 9007199254740991) : 0;
};
const tooLong = (what, n) => new RangeErr(what + ': length ' + n + ' is over the hook limit of ' + MAX_ARRAY);
const tooBig = (what, n) => new RangeErr(what + ': a string of ' + n + ' characters is over the hook limit of ' + MAX_STRING);
const checkArr = (what, n) => { if (n > MAX_ARRAY) throw tooLong(what, n); };
const checkStr = (what, n) => { if (n > MAX_STRING) throw tooBig(what, n); };
const wrap = (obj, key, make) => {
  const d = gopd(obj, key);
  if (!d || typeof d.value !== 'function') return;
  const orig = d.value;
  const name = typeof key === 'symbol' ? '[' + key.description + ']' : key;
  const f = make(orig, name);
  defProp(f, 'name', { value: orig.name });
  defProp(f, 'length', { value: orig.length });
  defProp(obj, key, { value: f, writable: d.writable, enumerable: d.enumerable, configurable: d.configurable });
};

// join converts each element once, in JS (interruptible), and checks the
// total before the native join builds the string.
const AP = Array.prototype;
const nativeJoin = AP.join;
for (const key of ownKeys(AP)) {
  if (key === 'constructor') continue;
  if (key === 'join' || key === 'toString' || key === 'toLocaleString') continue;
  wrap(AP, key, (orig, name) => ({ [name]() {
    let n = lenOf(this);
    if (name === 'concat') {
      for (let i = 0; i < arguments.length; i++) n += isArray(arguments[i]) ? lenOf(arguments[i]) : 1;
    } else if (name === 'push' || name === 'unshift' || name === 'splice' || name === 'toSpliced') {
      n += arguments.length;
    }
    checkArr('Array.prototype.' + name, n);
    if (name === 'flat' || name === 'flatMap') {
      let total = 0;
      const count = (a, depth) => {
        const l = lenOf(a);
        for (let i = 0; i < l; i++) {
          const v = a[i];
          if (depth > 0 && isArray(v)) count(v, depth - 1); else total++;
          if (total > MAX_ARRAY) throw tooLong('Array.prototype.' + name, total);
        }
      };
      count(this, name === 'flat' ? (arguments[0] === undefined ? 1 : floor(+arguments[0]) || 0) : 0);
    }
    return apply(orig, this, arguments);
  } })[name]);
}
const join = function join(sep) {
  const l = lenOf(this);
  checkArr('Array.prototype.join', l);
  const s = sep === undefined ? ',' : StringCtor(sep);
  const parts = new Array(l);
  let total = l > 0 ? (l - 1) * s.length : 0;
  checkStr('Array.prototype.join', total);
  for (let i = 0; i < l; i++) {
    const v = this[i];
    const p = v === undefined || v === null ? '' : StringCtor(v);
    parts[i] = p;
    total += p.length;
    checkStr('Array.prototype.join', total);
  }
  return apply(nativeJoin, parts, [s]);
};
defProp(AP, 'join', { value: join });
defProp(AP, 'toString', { value: function toString() { return typeof this.join === 'function' ? this.join() : Object.prototype.toString.call(this); } });
defProp(AP, 'toLocaleString', { value: function toLocaleString() { return apply(join, this, []); } });

// Array.from / Array.of and the array-like argument lists of apply.
wrap(Array, 'from', (orig) => function from(src) {
  if (src !== null && src !== undefined && typeof src[Symbol.iterator] !== 'function') checkArr('Array.from', lenOf(src));
  return apply(orig, this, arguments);
});
wrap(Function.prototype, 'apply', (orig) => function apply_(thisArg, args) {
  checkArr('Function.prototype.apply', lenOf(args));
  return apply(orig, this, arguments);
});
wrap(Reflect, 'apply', (orig) => function apply_(f, t, args) { checkArr('Reflect.apply', lenOf(args)); return apply(orig, this, arguments); });
wrap(Reflect, 'construct', (orig) => function construct(f, args) { checkArr('Reflect.construct', lenOf(args)); return apply(orig, this, arguments); });

// Strings.
const SP = String.prototype;
wrap(SP, 'repeat', (orig) => function repeat(n) {
  const c = floor(+n) || 0;
  checkStr('String.prototype.repeat', StringCtor(this).length * (c > 0 ? c : 0));
  return apply(orig, this, arguments);
});
for (const k of ['padStart', 'padEnd']) {
  wrap(SP, k, (orig) => ({ [k](n) { checkStr('String.prototype.' + k, floor(+n) || 0); return apply(orig, this, arguments); } })[k]);
}
wrap(SP, 'concat', (orig) => function concat() {
  let n = StringCtor(this).length;
  for (let i = 0; i < arguments.length; i++) n += StringCtor(arguments[i]).length;
  checkStr('String.prototype.concat', n);
  return apply(orig, this, arguments);
});
for (const k of ['replace', 'replaceAll']) {
  wrap(SP, k, (orig) => ({ [k](pattern, repl) {
    if (typeof repl !== 'function') {
      const s = StringCtor(this), r = StringCtor(repl);
      if (s.length + (s.length + 1) * r.length > MAX_STRING) {
        // Count the matches (in JS, interruptible) for the exact bound.
        let count = 0;
        if (isRegExp(pattern)) {
          const m = apply(SP.match, s, [new RegExp(pattern.source, pattern.flags.includes('g') || k === 'replaceAll' ? pattern.flags : pattern.flags + 'g')]);
          count = m ? m.length : 0;
          if (!pattern.flags.includes('g') && k === 'replace') count = min(count, 1);
        } else {
          const p = StringCtor(pattern);
          for (let i = s.indexOf(p); i >= 0 && count <= s.length; i = s.indexOf(p, i + (p.length || 1))) { count++; if (k === 'replace') break; }
        }
        checkStr('String.prototype.' + k, s.length + count * r.length * 2);
      }
    }
    return apply(orig, this, arguments);
  } })[k]);
}
wrap(SP, 'split', (orig) => function split(sep, limit) {
  if (limit === undefined || (limit >>> 0) > MAX_ARRAY) {
    const out = apply(orig, this, [sep, MAX_ARRAY + 1]);
    checkArr('String.prototype.split', out.length);
    return out;
  }
  return apply(orig, this, arguments);
});

// JSON.stringify walks its input natively and recursively: walk it first in
// JS, where the time limit, the call-depth limit and the array limit apply.
wrap(JSON, 'stringify', (orig) => function stringify(v) {
  const seen = [];
  const walk = (x) => {
    if (x === null || typeof x !== 'object') return;
    if (seen.indexOf(x) >= 0) return;
    seen.push(x);
    if (isArray(x)) { const l = lenOf(x); checkArr('JSON.stringify', l); for (let i = 0; i < l; i++) walk(x[i]); }
    else for (const k of Object.keys(x)) walk(x[k]);
    seen.pop();
  };
  walk(v);
  return apply(orig, this, arguments);
});

for (const k of ['ArrayBuffer', 'SharedArrayBuffer', 'DataView', 'Atomics', 'WeakRef', 'FinalizationRegistry',
  'Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array', 'Int32Array', 'Uint32Array',
  'Float32Array', 'Float64Array', 'BigInt64Array', 'BigUint64Array']) {
  delete G[k];
}

for (const k of ownKeys(host)) defProp(G, k, { value: host[k], writable: false, enumerable: false, configurable: false });

// Freeze everything reachable, including the intrinsics no global names.
const roots = [G,
  getProto(function* () {}), getProto(async function () {}),
  getProto([][Symbol.iterator]()), getProto(new Map()[Symbol.iterator]()), getProto(new Set()[Symbol.iterator]()),
  getProto(''[Symbol.iterator]()), getProto('a'.matchAll(/a/g)), getProto((function* () {})()),
  getProto(Promise.resolve())];
const stack = roots.slice();
const done = new Set();
while (stack.length) {
  const o = stack.pop();
  if ((typeof o !== 'object' && typeof o !== 'function') || o === null || done.has(o)) continue;
  done.add(o);
  stack.push(getProto(o));
  for (const k of ownKeys(o)) {
    const d = gopd(o, k);
    if (!d) continue;
    if ('value' in d) stack.push(d.value); else { stack.push(d.get); stack.push(d.set); }
  }
}
for (const o of done) freeze(o);
return jsonParse;
})`

var preludeProgram = goja.MustCompile("prelude", prelude, true)
