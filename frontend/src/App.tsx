import { AppShell } from './components/AppShell';
import { ServersPage } from './pages/ServersPage';

export function App() {
  return (
    <AppShell>
      <ServersPage />
    </AppShell>
  );
}
