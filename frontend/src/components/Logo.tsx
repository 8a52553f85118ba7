/** The hub-and-spoke mark, the same drawing as build/appicon.png. */
export function Logo({ size = 28 }: { size?: number }) {
  const spokes = [0, 60, 120, 180, 240, 300].map((deg) => {
    const rad = (deg * Math.PI) / 180;
    return { deg, x: 32 + 19 * Math.cos(rad), y: 32 + 19 * Math.sin(rad) };
  });
  return (
    <svg width={size} height={size} viewBox="0 0 64 64" aria-hidden="true" className="logo">
      <rect width="64" height="64" rx="14" className="logo-bg" />
      {spokes.map((p) => (
        <line key={`l${p.deg}`} x1="32" y1="32" x2={p.x} y2={p.y} className="logo-fg-line" />
      ))}
      {spokes.map((p) => (
        <circle key={`c${p.deg}`} cx={p.x} cy={p.y} r="5" className="logo-fg" />
      ))}
      <circle cx="32" cy="32" r="9" className="logo-fg" />
    </svg>
  );
}
