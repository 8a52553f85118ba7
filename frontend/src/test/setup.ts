import '@testing-library/jest-dom/vitest';
import { afterEach } from 'vitest';

// Every test starts with empty storage and the default theme and language.
afterEach(() => {
  localStorage.clear();
  sessionStorage.clear();
  delete document.documentElement.dataset.theme;
});
