export namespace appapi {
	
	export class AboutInfo {
	    version: string;
	    devBuild: boolean;
	    checkForUpdates: boolean;
	    lastCheck?: update.Result;
	
	    static createFrom(source: any = {}) {
	        return new AboutInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.version = source["version"];
	        this.devBuild = source["devBuild"];
	        this.checkForUpdates = source["checkForUpdates"];
	        this.lastCheck = this.convertValues(source["lastCheck"], update.Result);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class AggregatedTool {
	    name: string;
	    server: string;
	    tool: string;
	    description: string;
	    inputSchema: any;
	
	    static createFrom(source: any = {}) {
	        return new AggregatedTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.description = source["description"];
	        this.inputSchema = source["inputSchema"];
	    }
	}
	export class AppSettings {
	    port: number;
	    authEnabled: boolean;
	    separator: string;
	    retentionDays: number;
	    timeoutSeconds: number;
	    startAtLogin: boolean;
	    closeToTray: boolean;
	    theme: string;
	    language: string;
	    hookTimeoutSeconds: number;
	    hookMemoryMB: number;
	    approvalTimeoutSeconds: number;
	    sessionsPerCredential: number;
	    sessionsTotal: number;
	    sessionIdleTimeoutSeconds: number;
	    toolChanges: string;
	
	    static createFrom(source: any = {}) {
	        return new AppSettings(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.port = source["port"];
	        this.authEnabled = source["authEnabled"];
	        this.separator = source["separator"];
	        this.retentionDays = source["retentionDays"];
	        this.timeoutSeconds = source["timeoutSeconds"];
	        this.startAtLogin = source["startAtLogin"];
	        this.closeToTray = source["closeToTray"];
	        this.theme = source["theme"];
	        this.language = source["language"];
	        this.hookTimeoutSeconds = source["hookTimeoutSeconds"];
	        this.hookMemoryMB = source["hookMemoryMB"];
	        this.approvalTimeoutSeconds = source["approvalTimeoutSeconds"];
	        this.sessionsPerCredential = source["sessionsPerCredential"];
	        this.sessionsTotal = source["sessionsTotal"];
	        this.sessionIdleTimeoutSeconds = source["sessionIdleTimeoutSeconds"];
	        this.toolChanges = source["toolChanges"];
	    }
	}
	export class AuditPage {
	    rows: store.AuditRow[];
	    before: number;
	
	    static createFrom(source: any = {}) {
	        return new AuditPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rows = this.convertValues(source["rows"], store.AuditRow);
	        this.before = source["before"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class BundleUserOption {
	    key: string;
	    type: string;
	    title: string;
	    description: string;
	    required: boolean;
	    sensitive: boolean;
	    multiple: boolean;
	    default: string[];
	
	    static createFrom(source: any = {}) {
	        return new BundleUserOption(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.key = source["key"];
	        this.type = source["type"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.required = source["required"];
	        this.sensitive = source["sensitive"];
	        this.multiple = source["multiple"];
	        this.default = source["default"];
	    }
	}
	export class BundlePreview {
	    name: string;
	    displayName?: string;
	    version: string;
	    description: string;
	    author: string;
	    serverType: string;
	    signature: bundle.Signature;
	    tools: spec.BundleTool[];
	    userConfig: BundleUserOption[];
	    serverName: string;
	
	    static createFrom(source: any = {}) {
	        return new BundlePreview(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.displayName = source["displayName"];
	        this.version = source["version"];
	        this.description = source["description"];
	        this.author = source["author"];
	        this.serverType = source["serverType"];
	        this.signature = this.convertValues(source["signature"], bundle.Signature);
	        this.tools = this.convertValues(source["tools"], spec.BundleTool);
	        this.userConfig = this.convertValues(source["userConfig"], BundleUserOption);
	        this.serverName = source["serverName"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class CatalogTool {
	    server: string;
	    state: string;
	    tool: string;
	    description: string;
	    inputSchema: any;
	    seenAt: string;
	    changed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new CatalogTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.state = source["state"];
	        this.tool = source["tool"];
	        this.description = source["description"];
	        this.inputSchema = source["inputSchema"];
	        this.seenAt = source["seenAt"];
	        this.changed = source["changed"];
	    }
	}
	export class ClientAddPlan {
	    client: string;
	    path: string;
	    exists: boolean;
	    replaces: boolean;
	    unchanged: boolean;
	    diff: string;
	
	    static createFrom(source: any = {}) {
	        return new ClientAddPlan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.client = source["client"];
	        this.path = source["path"];
	        this.exists = source["exists"];
	        this.replaces = source["replaces"];
	        this.unchanged = source["unchanged"];
	        this.diff = source["diff"];
	    }
	}
	export class ClientAddResult {
	    path: string;
	    backup?: string;
	
	    static createFrom(source: any = {}) {
	        return new ClientAddResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.backup = source["backup"];
	    }
	}
	export class ClientConfigFile {
	    client: string;
	    path: string;
	    servers: number;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ClientConfigFile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.client = source["client"];
	        this.path = source["path"];
	        this.servers = source["servers"];
	        this.error = source["error"];
	    }
	}
	export class TokenView {
	    id: number;
	    name: string;
	    prefix: string;
	    servers: string[];
	    role: string;
	    roles: string[];
	    profile: string;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    lastUsedAt?: any;
	    // Go type: time
	    revokedAt?: any;
	
	    static createFrom(source: any = {}) {
	        return new TokenView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.prefix = source["prefix"];
	        this.servers = source["servers"];
	        this.role = source["role"];
	        this.roles = source["roles"];
	        this.profile = source["profile"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.lastUsedAt = this.convertValues(source["lastUsedAt"], null);
	        this.revokedAt = this.convertValues(source["revokedAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class CreatedToken {
	    token: string;
	    view: TokenView;
	
	    static createFrom(source: any = {}) {
	        return new CreatedToken(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.token = source["token"];
	        this.view = this.convertValues(source["view"], TokenView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ElectronDatabase {
	    path: string;
	    exists: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ElectronDatabase(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.exists = source["exists"];
	    }
	}
	export class EndpointStatus {
	    url: string;
	    running: boolean;
	    authEnabled: boolean;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new EndpointStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.url = source["url"];
	        this.running = source["running"];
	        this.authEnabled = source["authEnabled"];
	        this.error = source["error"];
	    }
	}
	export class HookInput {
	    id: number;
	    name: string;
	    enabled: boolean;
	    hookType: string;
	    script: string;
	    failClosed: boolean;
	
	    static createFrom(source: any = {}) {
	        return new HookInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.enabled = source["enabled"];
	        this.hookType = source["hookType"];
	        this.script = source["script"];
	        this.failClosed = source["failClosed"];
	    }
	}
	export class HookResult {
	    continue: boolean;
	    blocked?: hook.Block;
	    context: Record<string, any>;
	
	    static createFrom(source: any = {}) {
	        return new HookResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.continue = source["continue"];
	        this.blocked = this.convertValues(source["blocked"], hook.Block);
	        this.context = source["context"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HookTestResult {
	    result: HookResult;
	    console: string[];
	    error?: string;
	    durationMs: number;
	
	    static createFrom(source: any = {}) {
	        return new HookTestResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.result = this.convertValues(source["result"], HookResult);
	        this.console = source["console"];
	        this.error = source["error"];
	        this.durationMs = source["durationMs"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HookView {
	    id: number;
	    name: string;
	    enabled: boolean;
	    executionOrder: number;
	    hookType: string;
	    script: string;
	    failClosed: boolean;
	    // Go type: time
	    updatedAt: any;
	    loadError?: string;
	
	    static createFrom(source: any = {}) {
	        return new HookView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.enabled = source["enabled"];
	        this.executionOrder = source["executionOrder"];
	        this.hookType = source["hookType"];
	        this.script = source["script"];
	        this.failClosed = source["failClosed"];
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	        this.loadError = source["loadError"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class InstanceView {
	    id: number;
	    client: string;
	    pid?: number;
	    since: number;
	    calls: number;
	    state: string;
	
	    static createFrom(source: any = {}) {
	        return new InstanceView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.client = source["client"];
	        this.pid = source["pid"];
	        this.since = source["since"];
	        this.calls = source["calls"];
	        this.state = source["state"];
	    }
	}
	export class LogDetail {
	    id: number;
	    // Go type: time
	    time: any;
	    client: string;
	    server: string;
	    method: string;
	    target: string;
	    durationMs: number;
	    status: string;
	    error?: string;
	    request?: string;
	    response?: string;
	    backendTool?: string;
	    instance?: string;
	
	    static createFrom(source: any = {}) {
	        return new LogDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.time = this.convertValues(source["time"], null);
	        this.client = source["client"];
	        this.server = source["server"];
	        this.method = source["method"];
	        this.target = source["target"];
	        this.durationMs = source["durationMs"];
	        this.status = source["status"];
	        this.error = source["error"];
	        this.request = source["request"];
	        this.response = source["response"];
	        this.backendTool = source["backendTool"];
	        this.instance = source["instance"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class LogFileInfo {
	    path: string;
	    folder: string;
	
	    static createFrom(source: any = {}) {
	        return new LogFileInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.folder = source["folder"];
	    }
	}
	export class LogRow {
	    id: number;
	    // Go type: time
	    time: any;
	    client: string;
	    server: string;
	    method: string;
	    target: string;
	    durationMs: number;
	    status: string;
	    error?: string;
	    backendTool?: string;
	    instance?: string;
	
	    static createFrom(source: any = {}) {
	        return new LogRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.time = this.convertValues(source["time"], null);
	        this.client = source["client"];
	        this.server = source["server"];
	        this.method = source["method"];
	        this.target = source["target"];
	        this.durationMs = source["durationMs"];
	        this.status = source["status"];
	        this.error = source["error"];
	        this.backendTool = source["backendTool"];
	        this.instance = source["instance"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class LogPage {
	    rows: LogRow[];
	    nextBeforeId?: number;
	
	    static createFrom(source: any = {}) {
	        return new LogPage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rows = this.convertValues(source["rows"], LogRow);
	        this.nextBeforeId = source["nextBeforeId"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class LogQuery {
	    client?: string;
	    server?: string;
	    method?: string;
	    status?: string;
	    since?: string;
	    until?: string;
	    beforeId?: number;
	    limit?: number;
	
	    static createFrom(source: any = {}) {
	        return new LogQuery(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.client = source["client"];
	        this.server = source["server"];
	        this.method = source["method"];
	        this.status = source["status"];
	        this.since = source["since"];
	        this.until = source["until"];
	        this.beforeId = source["beforeId"];
	        this.limit = source["limit"];
	    }
	}
	
	export class LoginStart {
	    url: string;
	    registration: string;
	
	    static createFrom(source: any = {}) {
	        return new LoginStart(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.url = source["url"];
	        this.registration = source["registration"];
	    }
	}
	export class PerClientSuggestionView {
	    what: string;
	    clients: number;
	    at: number;
	
	    static createFrom(source: any = {}) {
	        return new PerClientSuggestionView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.what = source["what"];
	        this.clients = source["clients"];
	        this.at = source["at"];
	    }
	}
	export class PolicyView {
	    path: string;
	    source: string;
	    status: policy.Status;
	
	    static createFrom(source: any = {}) {
	        return new PolicyView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.source = source["source"];
	        this.status = this.convertValues(source["status"], policy.Status);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ProcessArtifact {
	    type: string;
	    description: string;
	    patterns: string[];
	
	    static createFrom(source: any = {}) {
	        return new ProcessArtifact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.description = source["description"];
	        this.patterns = source["patterns"];
	    }
	}
	export class ProcessEvent {
	    name: string;
	    description: string;
	    roles: string[];
	    payloadSchema?: number[];
	
	    static createFrom(source: any = {}) {
	        return new ProcessEvent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.roles = source["roles"];
	        this.payloadSchema = source["payloadSchema"];
	    }
	}
	export class ProcessGuard {
	    name: string;
	    description: string;
	    expression: string;
	
	    static createFrom(source: any = {}) {
	        return new ProcessGuard(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.expression = source["expression"];
	    }
	}
	export class ProcessState {
	    name: string;
	    description: string;
	    initial: boolean;
	    final: boolean;
	    requiredArtifacts: string[];
	
	    static createFrom(source: any = {}) {
	        return new ProcessState(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.initial = source["initial"];
	        this.final = source["final"];
	        this.requiredArtifacts = source["requiredArtifacts"];
	    }
	}
	export class ProcessTransition {
	    from: string[];
	    event: string;
	    to: string;
	    guard?: string;
	
	    static createFrom(source: any = {}) {
	        return new ProcessTransition(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.from = source["from"];
	        this.event = source["event"];
	        this.to = source["to"];
	        this.guard = source["guard"];
	    }
	}
	export class ProcessView {
	    file: string;
	    id: string;
	    version: string;
	    name: string;
	    description: string;
	    source: string;
	    states: ProcessState[];
	    events: ProcessEvent[];
	    guards: ProcessGuard[];
	    transitions: ProcessTransition[];
	    problems: stategate.Problem[];
	    error?: string;
	    artifacts: ProcessArtifact[];
	
	    static createFrom(source: any = {}) {
	        return new ProcessView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.file = source["file"];
	        this.id = source["id"];
	        this.version = source["version"];
	        this.name = source["name"];
	        this.description = source["description"];
	        this.source = source["source"];
	        this.states = this.convertValues(source["states"], ProcessState);
	        this.events = this.convertValues(source["events"], ProcessEvent);
	        this.guards = this.convertValues(source["guards"], ProcessGuard);
	        this.transitions = this.convertValues(source["transitions"], ProcessTransition);
	        this.problems = this.convertValues(source["problems"], stategate.Problem);
	        this.error = source["error"];
	        this.artifacts = this.convertValues(source["artifacts"], ProcessArtifact);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ProfileView {
	    name: string;
	    description: string;
	    mode: string;
	    servers: string[];
	    tools: Record<string, Array<string>>;
	    path: string;
	
	    static createFrom(source: any = {}) {
	        return new ProfileView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.mode = source["mode"];
	        this.servers = source["servers"];
	        this.tools = source["tools"];
	        this.path = source["path"];
	    }
	}
	export class RegistryTargetView {
	    target: registry.Target;
	    label: string;
	    installable: boolean;
	    reason?: string;
	    fields: registry.Field[];
	
	    static createFrom(source: any = {}) {
	        return new RegistryTargetView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.target = this.convertValues(source["target"], registry.Target);
	        this.label = source["label"];
	        this.installable = source["installable"];
	        this.reason = source["reason"];
	        this.fields = this.convertValues(source["fields"], registry.Field);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RegistryEntryView {
	    entry: registry.Entry;
	    targets: RegistryTargetView[];
	    defaultName: string;
	
	    static createFrom(source: any = {}) {
	        return new RegistryEntryView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.entry = this.convertValues(source["entry"], registry.Entry);
	        this.targets = this.convertValues(source["targets"], RegistryTargetView);
	        this.defaultName = source["defaultName"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class ScriptProblem {
	    line: number;
	    column: number;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new ScriptProblem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.line = source["line"];
	        this.column = source["column"];
	        this.message = source["message"];
	    }
	}
	export class ServerTool {
	    name: string;
	    description: string;
	    enabled: boolean;
	    finalName: string;
	
	    static createFrom(source: any = {}) {
	        return new ServerTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.enabled = source["enabled"];
	        this.finalName = source["finalName"];
	    }
	}
	export class ServerView {
	    name: string;
	    transport: string;
	    enabled: boolean;
	    state: string;
	    stateSince: number;
	    error?: string;
	    restarts: number;
	    tools: number;
	    target: string;
	    prefixMode: string;
	    loggedIn?: boolean;
	    protocol?: string;
	    protocolsOffered?: string[];
	    isolation: string;
	    instances?: InstanceView[];
	    suggestPerClient?: PerClientSuggestionView;
	    passUpstreamAuth?: boolean;
	    lazy?: boolean;
	    lazyWhy?: string;
	    bundle?: spec.Bundle;
	
	    static createFrom(source: any = {}) {
	        return new ServerView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.enabled = source["enabled"];
	        this.state = source["state"];
	        this.stateSince = source["stateSince"];
	        this.error = source["error"];
	        this.restarts = source["restarts"];
	        this.tools = source["tools"];
	        this.target = source["target"];
	        this.prefixMode = source["prefixMode"];
	        this.loggedIn = source["loggedIn"];
	        this.protocol = source["protocol"];
	        this.protocolsOffered = source["protocolsOffered"];
	        this.isolation = source["isolation"];
	        this.instances = this.convertValues(source["instances"], InstanceView);
	        this.suggestPerClient = this.convertValues(source["suggestPerClient"], PerClientSuggestionView);
	        this.passUpstreamAuth = source["passUpstreamAuth"];
	        this.lazy = source["lazy"];
	        this.lazyWhy = source["lazyWhy"];
	        this.bundle = this.convertValues(source["bundle"], spec.Bundle);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StateGateStatus {
	    added: boolean;
	    enabled: boolean;
	    state: string;
	    dir: string;
	
	    static createFrom(source: any = {}) {
	        return new StateGateStatus(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.enabled = source["enabled"];
	        this.state = source["state"];
	        this.dir = source["dir"];
	    }
	}
	
	export class ToolCallResult {
	    content: any[];
	    isError: boolean;
	    structuredContent?: any;
	    durationMs: number;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new ToolCallResult(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.content = source["content"];
	        this.isError = source["isError"];
	        this.structuredContent = source["structuredContent"];
	        this.durationMs = source["durationMs"];
	        this.error = source["error"];
	    }
	}
	export class ToolChange {
	    server: string;
	    tool: string;
	    oldHash: string;
	    newHash: string;
	    old: string;
	    new: string;
	    diff: string;
	    changedAt: string;
	    held: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ToolChange(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.oldHash = source["oldHash"];
	        this.newHash = source["newHash"];
	        this.old = source["old"];
	        this.new = source["new"];
	        this.diff = source["diff"];
	        this.changedAt = source["changedAt"];
	        this.held = source["held"];
	    }
	}

}

export namespace approval {
	
	export class Pending {
	    id: string;
	    rule: string;
	    client: string;
	    subject?: string;
	    server: string;
	    tool: string;
	    target: string;
	    arguments: number[];
	    // Go type: time
	    askedAt: any;
	    // Go type: time
	    deadline: any;
	
	    static createFrom(source: any = {}) {
	        return new Pending(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.rule = source["rule"];
	        this.client = source["client"];
	        this.subject = source["subject"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.target = source["target"];
	        this.arguments = source["arguments"];
	        this.askedAt = this.convertValues(source["askedAt"], null);
	        this.deadline = this.convertValues(source["deadline"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace bundle {
	
	export class Signature {
	    status: string;
	    publisher?: string;
	    issuer?: string;
	    fingerprint?: string;
	    // Go type: time
	    notBefore: any;
	    // Go type: time
	    notAfter: any;
	
	    static createFrom(source: any = {}) {
	        return new Signature(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.publisher = source["publisher"];
	        this.issuer = source["issuer"];
	        this.fingerprint = source["fingerprint"];
	        this.notBefore = this.convertValues(source["notBefore"], null);
	        this.notAfter = this.convertValues(source["notAfter"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace chat {
	
	export class Card {
	    id: string;
	    server: string;
	    tool: string;
	    name: string;
	    args: string;
	    status: string;
	    result?: string;
	    isError: boolean;
	    autoContext?: boolean;
	    startedAt: number;
	    durationMs: number;
	
	    static createFrom(source: any = {}) {
	        return new Card(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.name = source["name"];
	        this.args = source["args"];
	        this.status = source["status"];
	        this.result = source["result"];
	        this.isError = source["isError"];
	        this.autoContext = source["autoContext"];
	        this.startedAt = source["startedAt"];
	        this.durationMs = source["durationMs"];
	    }
	}
	export class ConversationInput {
	    title: string;
	    provider: string;
	    model: string;
	    disabledServers: string[];
	
	    static createFrom(source: any = {}) {
	        return new ConversationInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.title = source["title"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.disabledServers = source["disabledServers"];
	    }
	}
	export class ConversationView {
	    id: number;
	    title: string;
	    provider: string;
	    model: string;
	    disabledServers: string[];
	    approvedTools: string[];
	    inputTokens: number;
	    outputTokens: number;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	    messages: store.ChatMessage[];
	    cards: Card[];
	    running: boolean;
	
	    static createFrom(source: any = {}) {
	        return new ConversationView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.disabledServers = source["disabledServers"];
	        this.approvedTools = source["approvedTools"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	        this.messages = this.convertValues(source["messages"], store.ChatMessage);
	        this.cards = this.convertValues(source["cards"], Card);
	        this.running = source["running"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class EnvProvider {
	    kind: string;
	    label: string;
	    keyVar: string;
	    baseUrlVar?: string;
	    baseUrl?: string;
	    model: string;
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new EnvProvider(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.label = source["label"];
	        this.keyVar = source["keyVar"];
	        this.baseUrlVar = source["baseUrlVar"];
	        this.baseUrl = source["baseUrl"];
	        this.model = source["model"];
	        this.reason = source["reason"];
	    }
	}
	export class ProviderInput {
	    name: string;
	    kind: string;
	    baseUrl: string;
	    defaultModel: string;
	    tools: string;
	    apiKey?: string;
	
	    static createFrom(source: any = {}) {
	        return new ProviderInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.baseUrl = source["baseUrl"];
	        this.defaultModel = source["defaultModel"];
	        this.tools = source["tools"];
	        this.apiKey = source["apiKey"];
	    }
	}
	export class ProviderView {
	    id: number;
	    name: string;
	    kind: string;
	    baseUrl: string;
	    defaultModel: string;
	    tools: string;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	    hasKey: boolean;
	    keyMask?: string;
	
	    static createFrom(source: any = {}) {
	        return new ProviderView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.name = source["name"];
	        this.kind = source["kind"];
	        this.baseUrl = source["baseUrl"];
	        this.defaultModel = source["defaultModel"];
	        this.tools = source["tools"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	        this.hasKey = source["hasKey"];
	        this.keyMask = source["keyMask"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Status {
	    configured: boolean;
	    environment?: EnvProvider;
	    environmentError?: string;
	    hint?: string;
	    mcpEnabled: boolean;
	    toolsSetting: boolean;
	    keyStore: string;
	    keyFile?: string;
	    maxRounds: number;
	    toolTimeoutSeconds: number;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.configured = source["configured"];
	        this.environment = this.convertValues(source["environment"], EnvProvider);
	        this.environmentError = source["environmentError"];
	        this.hint = source["hint"];
	        this.mcpEnabled = source["mcpEnabled"];
	        this.toolsSetting = source["toolsSetting"];
	        this.keyStore = source["keyStore"];
	        this.keyFile = source["keyFile"];
	        this.maxRounds = source["maxRounds"];
	        this.toolTimeoutSeconds = source["toolTimeoutSeconds"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace config {
	
	export class Skipped {
	    name: string;
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new Skipped(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.reason = source["reason"];
	    }
	}
	export class ImportReport {
	    added: string[];
	    skipped: Skipped[];
	    needsSecrets?: spec.SecretRef[];
	
	    static createFrom(source: any = {}) {
	        return new ImportReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.skipped = this.convertValues(source["skipped"], Skipped);
	        this.needsSecrets = this.convertValues(source["needsSecrets"], spec.SecretRef);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace discovery {
	
	export class Step {
	    what: string;
	    url: string;
	    ok: boolean;
	    result: string;
	
	    static createFrom(source: any = {}) {
	        return new Step(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.what = source["what"];
	        this.url = source["url"];
	        this.ok = source["ok"];
	        this.result = source["result"];
	    }
	}
	export class Found {
	    input: string;
	    endpoint?: string;
	    transport?: string;
	    needsAuth?: boolean;
	    resourceMetadata?: string;
	    authorizationServers?: string[];
	    name?: string;
	    title?: string;
	    version?: string;
	    mcpVersion?: string;
	    steps: Step[];
	
	    static createFrom(source: any = {}) {
	        return new Found(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.input = source["input"];
	        this.endpoint = source["endpoint"];
	        this.transport = source["transport"];
	        this.needsAuth = source["needsAuth"];
	        this.resourceMetadata = source["resourceMetadata"];
	        this.authorizationServers = source["authorizationServers"];
	        this.name = source["name"];
	        this.title = source["title"];
	        this.version = source["version"];
	        this.mcpVersion = source["mcpVersion"];
	        this.steps = this.convertValues(source["steps"], Step);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace electronimport {
	
	export class Skip {
	    kind: string;
	    name: string;
	    reason: string;
	
	    static createFrom(source: any = {}) {
	        return new Skip(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.name = source["name"];
	        this.reason = source["reason"];
	    }
	}
	export class PlannedProfile {
	    name: string;
	    from: string;
	    servers: string[];
	
	    static createFrom(source: any = {}) {
	        return new PlannedProfile(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.from = source["from"];
	        this.servers = source["servers"];
	    }
	}
	export class PlannedServer {
	    name: string;
	    from: string;
	    transport: string;
	    target: string;
	    enabled: boolean;
	    disabledTools: string[];
	    secretEnv?: string[];
	    secretHeaders?: string[];
	    project?: string;
	
	    static createFrom(source: any = {}) {
	        return new PlannedServer(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.from = source["from"];
	        this.transport = source["transport"];
	        this.target = source["target"];
	        this.enabled = source["enabled"];
	        this.disabledTools = source["disabledTools"];
	        this.secretEnv = source["secretEnv"];
	        this.secretHeaders = source["secretHeaders"];
	        this.project = source["project"];
	    }
	}
	export class Plan {
	    source: string;
	    kind: string;
	    workspace?: string;
	    servers: PlannedServer[];
	    profiles: PlannedProfile[];
	    skipped: Skip[];
	    tokens: number;
	    tokensNote?: string;
	    notes: string[];
	
	    static createFrom(source: any = {}) {
	        return new Plan(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.source = source["source"];
	        this.kind = source["kind"];
	        this.workspace = source["workspace"];
	        this.servers = this.convertValues(source["servers"], PlannedServer);
	        this.profiles = this.convertValues(source["profiles"], PlannedProfile);
	        this.skipped = this.convertValues(source["skipped"], Skip);
	        this.tokens = source["tokens"];
	        this.tokensNote = source["tokensNote"];
	        this.notes = source["notes"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	

}

export namespace hook {
	
	export class Block {
	    hook: string;
	    phase: string;
	    message: string;
	    code?: number;
	
	    static createFrom(source: any = {}) {
	        return new Block(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.hook = source["hook"];
	        this.phase = source["phase"];
	        this.message = source["message"];
	        this.code = source["code"];
	    }
	}

}

export namespace metrics {
	
	export class ServerPoint {
	    server: string;
	    calls: number;
	    errors: number;
	    blocked: number;
	    p50Ms: number;
	    p95Ms: number;
	    state?: string;
	
	    static createFrom(source: any = {}) {
	        return new ServerPoint(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.calls = source["calls"];
	        this.errors = source["errors"];
	        this.blocked = source["blocked"];
	        this.p50Ms = source["p50Ms"];
	        this.p95Ms = source["p95Ms"];
	        this.state = source["state"];
	    }
	}
	export class Point {
	    at: number;
	    seconds: number;
	    requests: number;
	    calls: number;
	    errors: number;
	    blocked: number;
	    p50Ms: number;
	    p95Ms: number;
	    sessions: number;
	    approvalsWaiting: number;
	    hookRuns: number;
	    hookP95Ms: number;
	    servers: ServerPoint[];
	
	    static createFrom(source: any = {}) {
	        return new Point(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.at = source["at"];
	        this.seconds = source["seconds"];
	        this.requests = source["requests"];
	        this.calls = source["calls"];
	        this.errors = source["errors"];
	        this.blocked = source["blocked"];
	        this.p50Ms = source["p50Ms"];
	        this.p95Ms = source["p95Ms"];
	        this.sessions = source["sessions"];
	        this.approvalsWaiting = source["approvalsWaiting"];
	        this.hookRuns = source["hookRuns"];
	        this.hookP95Ms = source["hookP95Ms"];
	        this.servers = this.convertValues(source["servers"], ServerPoint);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class SeriesView {
	    intervalSeconds: number;
	    capacity: number;
	    points: Point[];
	
	    static createFrom(source: any = {}) {
	        return new SeriesView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.intervalSeconds = source["intervalSeconds"];
	        this.capacity = source["capacity"];
	        this.points = this.convertValues(source["points"], Point);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace policy {
	
	export class Problem {
	    line: number;
	    column: number;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Problem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.line = source["line"];
	        this.column = source["column"];
	        this.message = source["message"];
	    }
	}
	export class FileError {
	    path?: string;
	    problems: Problem[];
	
	    static createFrom(source: any = {}) {
	        return new FileError(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.problems = this.convertValues(source["problems"], Problem);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Status {
	    path: string;
	    exists: boolean;
	    active: boolean;
	    rules: number;
	    hash?: string;
	    // Go type: time
	    loadedAt: any;
	    error?: FileError;
	    // Go type: time
	    errorAt: any;
	
	    static createFrom(source: any = {}) {
	        return new Status(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.path = source["path"];
	        this.exists = source["exists"];
	        this.active = source["active"];
	        this.rules = source["rules"];
	        this.hash = source["hash"];
	        this.loadedAt = this.convertValues(source["loadedAt"], null);
	        this.error = this.convertValues(source["error"], FileError);
	        this.errorAt = this.convertValues(source["errorAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace registry {
	
	export class Answers {
	    args?: Record<string, string>;
	    env?: Record<string, string>;
	    headers?: Record<string, string>;
	
	    static createFrom(source: any = {}) {
	        return new Answers(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.args = source["args"];
	        this.env = source["env"];
	        this.headers = source["headers"];
	    }
	}
	export class Input {
	    description?: string;
	    isRequired?: boolean;
	    format?: string;
	    value?: string;
	    isSecret?: boolean;
	    default?: string;
	    placeholder?: string;
	    choices?: string[];
	    variables?: Record<string, Input>;
	
	    static createFrom(source: any = {}) {
	        return new Input(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.description = source["description"];
	        this.isRequired = source["isRequired"];
	        this.format = source["format"];
	        this.value = source["value"];
	        this.isSecret = source["isSecret"];
	        this.default = source["default"];
	        this.placeholder = source["placeholder"];
	        this.choices = source["choices"];
	        this.variables = this.convertValues(source["variables"], Input, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Argument {
	    type: string;
	    name?: string;
	    valueHint?: string;
	    isRepeated?: boolean;
	    description?: string;
	    isRequired?: boolean;
	    format?: string;
	    value?: string;
	    isSecret?: boolean;
	    default?: string;
	    placeholder?: string;
	    choices?: string[];
	    variables?: Record<string, Input>;
	
	    static createFrom(source: any = {}) {
	        return new Argument(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.name = source["name"];
	        this.valueHint = source["valueHint"];
	        this.isRepeated = source["isRepeated"];
	        this.description = source["description"];
	        this.isRequired = source["isRequired"];
	        this.format = source["format"];
	        this.value = source["value"];
	        this.isSecret = source["isSecret"];
	        this.default = source["default"];
	        this.placeholder = source["placeholder"];
	        this.choices = source["choices"];
	        this.variables = this.convertValues(source["variables"], Input, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Check {
	    server: string;
	    source: spec.Source;
	    latest?: string;
	    outdated: boolean;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new Check(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.source = this.convertValues(source["source"], spec.Source);
	        this.latest = source["latest"];
	        this.outdated = source["outdated"];
	        this.error = source["error"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Official {
	    status?: string;
	    publishedAt?: string;
	    updatedAt?: string;
	    isLatest: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Official(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.status = source["status"];
	        this.publishedAt = source["publishedAt"];
	        this.updatedAt = source["updatedAt"];
	        this.isLatest = source["isLatest"];
	    }
	}
	export class EntryMeta {
	    "io.modelcontextprotocol.registry/official"?: Official;
	
	    static createFrom(source: any = {}) {
	        return new EntryMeta(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this["io.modelcontextprotocol.registry/official"] = this.convertValues(source["io.modelcontextprotocol.registry/official"], Official);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Remote {
	    type: string;
	    url: string;
	    headers?: KeyValueInput[];
	    variables?: Record<string, Input>;
	
	    static createFrom(source: any = {}) {
	        return new Remote(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.url = source["url"];
	        this.headers = this.convertValues(source["headers"], KeyValueInput);
	        this.variables = this.convertValues(source["variables"], Input, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class KeyValueInput {
	    name: string;
	    description?: string;
	    isRequired?: boolean;
	    format?: string;
	    value?: string;
	    isSecret?: boolean;
	    default?: string;
	    placeholder?: string;
	    choices?: string[];
	    variables?: Record<string, Input>;
	
	    static createFrom(source: any = {}) {
	        return new KeyValueInput(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	        this.isRequired = source["isRequired"];
	        this.format = source["format"];
	        this.value = source["value"];
	        this.isSecret = source["isSecret"];
	        this.default = source["default"];
	        this.placeholder = source["placeholder"];
	        this.choices = source["choices"];
	        this.variables = this.convertValues(source["variables"], Input, true);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Transport {
	    type: string;
	    url?: string;
	    headers?: KeyValueInput[];
	
	    static createFrom(source: any = {}) {
	        return new Transport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.url = source["url"];
	        this.headers = this.convertValues(source["headers"], KeyValueInput);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Package {
	    registryType: string;
	    registryBaseUrl?: string;
	    identifier: string;
	    version?: string;
	    fileSha256?: string;
	    runtimeHint?: string;
	    transport: Transport;
	    runtimeArguments?: Argument[];
	    packageArguments?: Argument[];
	    environmentVariables?: KeyValueInput[];
	
	    static createFrom(source: any = {}) {
	        return new Package(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.registryType = source["registryType"];
	        this.registryBaseUrl = source["registryBaseUrl"];
	        this.identifier = source["identifier"];
	        this.version = source["version"];
	        this.fileSha256 = source["fileSha256"];
	        this.runtimeHint = source["runtimeHint"];
	        this.transport = this.convertValues(source["transport"], Transport);
	        this.runtimeArguments = this.convertValues(source["runtimeArguments"], Argument);
	        this.packageArguments = this.convertValues(source["packageArguments"], Argument);
	        this.environmentVariables = this.convertValues(source["environmentVariables"], KeyValueInput);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Repository {
	    url?: string;
	    source?: string;
	    subfolder?: string;
	
	    static createFrom(source: any = {}) {
	        return new Repository(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.url = source["url"];
	        this.source = source["source"];
	        this.subfolder = source["subfolder"];
	    }
	}
	export class Server {
	    name: string;
	    title?: string;
	    description?: string;
	    version: string;
	    websiteUrl?: string;
	    repository?: Repository;
	    packages?: Package[];
	    remotes?: Remote[];
	
	    static createFrom(source: any = {}) {
	        return new Server(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.title = source["title"];
	        this.description = source["description"];
	        this.version = source["version"];
	        this.websiteUrl = source["websiteUrl"];
	        this.repository = this.convertValues(source["repository"], Repository);
	        this.packages = this.convertValues(source["packages"], Package);
	        this.remotes = this.convertValues(source["remotes"], Remote);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class Entry {
	    server: Server;
	    _meta: EntryMeta;
	
	    static createFrom(source: any = {}) {
	        return new Entry(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = this.convertValues(source["server"], Server);
	        this._meta = this.convertValues(source["_meta"], EntryMeta);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Field {
	    kind: string;
	    key: string;
	    description?: string;
	    required: boolean;
	    secret: boolean;
	    default?: string;
	    choices?: string[];
	    format?: string;
	
	    static createFrom(source: any = {}) {
	        return new Field(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.key = source["key"];
	        this.description = source["description"];
	        this.required = source["required"];
	        this.secret = source["secret"];
	        this.default = source["default"];
	        this.choices = source["choices"];
	        this.format = source["format"];
	    }
	}
	
	
	
	
	export class PageMetadata {
	    nextCursor?: string;
	    count: number;
	
	    static createFrom(source: any = {}) {
	        return new PageMetadata(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.nextCursor = source["nextCursor"];
	        this.count = source["count"];
	    }
	}
	export class Page {
	    servers: Entry[];
	    metadata: PageMetadata;
	
	    static createFrom(source: any = {}) {
	        return new Page(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.servers = this.convertValues(source["servers"], Entry);
	        this.metadata = this.convertValues(source["metadata"], PageMetadata);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	
	
	export class Target {
	    kind: string;
	    index: number;
	
	    static createFrom(source: any = {}) {
	        return new Target(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.kind = source["kind"];
	        this.index = source["index"];
	    }
	}

}

export namespace spec {
	
	export class BundleTool {
	    name: string;
	    description?: string;
	
	    static createFrom(source: any = {}) {
	        return new BundleTool(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.description = source["description"];
	    }
	}
	export class Bundle {
	    name: string;
	    version: string;
	    author?: string;
	    tools?: BundleTool[];
	    signature: string;
	    signedBy?: string;
	    fingerprint?: string;
	
	    static createFrom(source: any = {}) {
	        return new Bundle(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.version = source["version"];
	        this.author = source["author"];
	        this.tools = this.convertValues(source["tools"], BundleTool);
	        this.signature = source["signature"];
	        this.signedBy = source["signedBy"];
	        this.fingerprint = source["fingerprint"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	export class Chat {
	    systemInstruction?: string;
	    responseInstruction?: string;
	    autoContextTool?: string;
	    approve?: string;
	    approveTools?: string[];
	
	    static createFrom(source: any = {}) {
	        return new Chat(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.systemInstruction = source["systemInstruction"];
	        this.responseInstruction = source["responseInstruction"];
	        this.autoContextTool = source["autoContextTool"];
	        this.approve = source["approve"];
	        this.approveTools = source["approveTools"];
	    }
	}
	export class Gate {
	    enabled: boolean;
	    message?: string;
	    initTool?: string;
	    initArgs?: number[];
	    initArgFiles?: Record<string, string>;
	    overviewTool?: string;
	    hideTools?: boolean;
	
	    static createFrom(source: any = {}) {
	        return new Gate(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.enabled = source["enabled"];
	        this.message = source["message"];
	        this.initTool = source["initTool"];
	        this.initArgs = source["initArgs"];
	        this.initArgFiles = source["initArgFiles"];
	        this.overviewTool = source["overviewTool"];
	        this.hideTools = source["hideTools"];
	    }
	}
	export class SecretRef {
	    server: string;
	    kind: string;
	    name: string;
	
	    static createFrom(source: any = {}) {
	        return new SecretRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.server = source["server"];
	        this.kind = source["kind"];
	        this.name = source["name"];
	    }
	}
	export class Source {
	    registry?: string;
	    name?: string;
	    version?: string;
	
	    static createFrom(source: any = {}) {
	        return new Source(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.registry = source["registry"];
	        this.name = source["name"];
	        this.version = source["version"];
	    }
	}
	export class Server {
	    name: string;
	    transport: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string>;
	    cwd?: string;
	    url?: string;
	    headers?: Record<string, string>;
	    secretEnv?: string[];
	    secretHeaders?: string[];
	    secretRevision?: number;
	    passUpstreamAuth?: boolean;
	    isolation?: string;
	    protocol?: string;
	    enabled: boolean;
	    prefixMode: string;
	    timeoutSeconds?: number;
	    disabledTools?: string[];
	    gate: Gate;
	    chat: Chat;
	    toolChanges?: string;
	    start?: string;
	    bundle?: Bundle;
	    source: Source;
	
	    static createFrom(source: any = {}) {
	        return new Server(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.command = source["command"];
	        this.args = source["args"];
	        this.env = source["env"];
	        this.cwd = source["cwd"];
	        this.url = source["url"];
	        this.headers = source["headers"];
	        this.secretEnv = source["secretEnv"];
	        this.secretHeaders = source["secretHeaders"];
	        this.secretRevision = source["secretRevision"];
	        this.passUpstreamAuth = source["passUpstreamAuth"];
	        this.isolation = source["isolation"];
	        this.protocol = source["protocol"];
	        this.enabled = source["enabled"];
	        this.prefixMode = source["prefixMode"];
	        this.timeoutSeconds = source["timeoutSeconds"];
	        this.disabledTools = source["disabledTools"];
	        this.gate = this.convertValues(source["gate"], Gate);
	        this.chat = this.convertValues(source["chat"], Chat);
	        this.toolChanges = source["toolChanges"];
	        this.start = source["start"];
	        this.bundle = this.convertValues(source["bundle"], Bundle);
	        this.source = this.convertValues(source["source"], Source);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace stategate {
	
	export class AllowedEvent {
	    event_name: string;
	    description: string;
	    payload_schema?: number[];
	
	    static createFrom(source: any = {}) {
	        return new AllowedEvent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event_name = source["event_name"];
	        this.description = source["description"];
	        this.payload_schema = source["payload_schema"];
	    }
	}
	export class ArtifactInfo {
	    event_id: string;
	    type: string;
	    path: string;
	    size: number;
	    sha256: string;
	    time: string;
	
	    static createFrom(source: any = {}) {
	        return new ArtifactInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event_id = source["event_id"];
	        this.type = source["type"];
	        this.path = source["path"];
	        this.size = source["size"];
	        this.sha256 = source["sha256"];
	        this.time = source["time"];
	    }
	}
	export class TransitionView {
	    to_state: string;
	    guard?: string;
	    guard_status: string;
	    missing_requirements?: string[];
	
	    static createFrom(source: any = {}) {
	        return new TransitionView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.to_state = source["to_state"];
	        this.guard = source["guard"];
	        this.guard_status = source["guard_status"];
	        this.missing_requirements = source["missing_requirements"];
	    }
	}
	export class EventView {
	    event_name: string;
	    description: string;
	    payload_schema?: number[];
	    transitions: TransitionView[];
	    is_allowed: boolean;
	    blocked_reason?: string;
	
	    static createFrom(source: any = {}) {
	        return new EventView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.event_name = source["event_name"];
	        this.description = source["description"];
	        this.payload_schema = source["payload_schema"];
	        this.transitions = this.convertValues(source["transitions"], TransitionView);
	        this.is_allowed = source["is_allowed"];
	        this.blocked_reason = source["blocked_reason"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class EventsView {
	    run_id: string;
	    current_state: string;
	    events: EventView[];
	
	    static createFrom(source: any = {}) {
	        return new EventsView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.current_state = source["current_state"];
	        this.events = this.convertValues(source["events"], EventView);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class HistoryEvent {
	    seq: number;
	    event_id: string;
	    event_name: string;
	    payload: number[];
	    actor: string;
	    from_state: string;
	    to_state: string;
	    idempotency_key: string;
	    time: string;
	
	    static createFrom(source: any = {}) {
	        return new HistoryEvent(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.seq = source["seq"];
	        this.event_id = source["event_id"];
	        this.event_name = source["event_name"];
	        this.payload = source["payload"];
	        this.actor = source["actor"];
	        this.from_state = source["from_state"];
	        this.to_state = source["to_state"];
	        this.idempotency_key = source["idempotency_key"];
	        this.time = source["time"];
	    }
	}
	export class MissingGuard {
	    guard_name: string;
	    description: string;
	    current_status: string;
	
	    static createFrom(source: any = {}) {
	        return new MissingGuard(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.guard_name = source["guard_name"];
	        this.description = source["description"];
	        this.current_status = source["current_status"];
	    }
	}
	export class Problem {
	    line: number;
	    column: number;
	    path?: string;
	    message: string;
	
	    static createFrom(source: any = {}) {
	        return new Problem(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.line = source["line"];
	        this.column = source["column"];
	        this.path = source["path"];
	        this.message = source["message"];
	    }
	}
	export class ProcessRef {
	    id: string;
	    version: string;
	    name: string;
	
	    static createFrom(source: any = {}) {
	        return new ProcessRef(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.version = source["version"];
	        this.name = source["name"];
	    }
	}
	export class Progress {
	    completed_states: string[];
	    current_state: string;
	    remaining_states: string[];
	
	    static createFrom(source: any = {}) {
	        return new Progress(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.completed_states = source["completed_states"];
	        this.current_state = source["current_state"];
	        this.remaining_states = source["remaining_states"];
	    }
	}
	export class RequiredArtifact {
	    type: string;
	    description: string;
	    status: string;
	
	    static createFrom(source: any = {}) {
	        return new RequiredArtifact(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.type = source["type"];
	        this.description = source["description"];
	        this.status = source["status"];
	    }
	}
	export class Summary {
	    run_id: string;
	    process: ProcessRef;
	    current_state: string;
	    revision: number;
	    progress: Progress;
	    created_at: string;
	    updated_at: string;
	
	    static createFrom(source: any = {}) {
	        return new Summary(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.process = this.convertValues(source["process"], ProcessRef);
	        this.current_state = source["current_state"];
	        this.revision = source["revision"];
	        this.progress = this.convertValues(source["progress"], Progress);
	        this.created_at = source["created_at"];
	        this.updated_at = source["updated_at"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class StateView {
	    run_id: string;
	    process_id: string;
	    process_version: string;
	    current_state: string;
	    revision: number;
	    context: number[];
	    missing_guards: MissingGuard[];
	    required_artifacts: RequiredArtifact[];
	    allowed_events: AllowedEvent[];
	    updated_at: string;
	
	    static createFrom(source: any = {}) {
	        return new StateView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.process_id = source["process_id"];
	        this.process_version = source["process_version"];
	        this.current_state = source["current_state"];
	        this.revision = source["revision"];
	        this.context = source["context"];
	        this.missing_guards = this.convertValues(source["missing_guards"], MissingGuard);
	        this.required_artifacts = this.convertValues(source["required_artifacts"], RequiredArtifact);
	        this.allowed_events = this.convertValues(source["allowed_events"], AllowedEvent);
	        this.updated_at = source["updated_at"];
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class RunInfo {
	    run_id: string;
	    process_id: string;
	    process_version: string;
	    current_state: string;
	    revision: number;
	    context: number[];
	    workspace: string;
	    summary_uri: string;
	    created_by: string;
	    created_at: string;
	    updated_at: string;
	    error?: string;
	
	    static createFrom(source: any = {}) {
	        return new RunInfo(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run_id = source["run_id"];
	        this.process_id = source["process_id"];
	        this.process_version = source["process_version"];
	        this.current_state = source["current_state"];
	        this.revision = source["revision"];
	        this.context = source["context"];
	        this.workspace = source["workspace"];
	        this.summary_uri = source["summary_uri"];
	        this.created_by = source["created_by"];
	        this.created_at = source["created_at"];
	        this.updated_at = source["updated_at"];
	        this.error = source["error"];
	    }
	}
	export class RunDetail {
	    run: RunInfo;
	    state?: StateView;
	    events?: EventsView;
	    summary?: Summary;
	    history: HistoryEvent[];
	    artifacts: ArtifactInfo[];
	
	    static createFrom(source: any = {}) {
	        return new RunDetail(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.run = this.convertValues(source["run"], RunInfo);
	        this.state = this.convertValues(source["state"], StateView);
	        this.events = this.convertValues(source["events"], EventsView);
	        this.summary = this.convertValues(source["summary"], Summary);
	        this.history = this.convertValues(source["history"], HistoryEvent);
	        this.artifacts = this.convertValues(source["artifacts"], ArtifactInfo);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	
	
	

}

export namespace store {
	
	export class AuditReport {
	    rows: number;
	    head: string;
	    problems: string[];
	
	    static createFrom(source: any = {}) {
	        return new AuditReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.rows = source["rows"];
	        this.head = source["head"];
	        this.problems = source["problems"];
	    }
	}
	export class AuditRow {
	    id: number;
	    time: string;
	    client: string;
	    subject?: string;
	    server: string;
	    tool: string;
	    target: string;
	    policies: string;
	    arguments: string;
	    status: string;
	    result?: string;
	    error?: string;
	    prevHash: string;
	    hash: string;
	
	    static createFrom(source: any = {}) {
	        return new AuditRow(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.time = source["time"];
	        this.client = source["client"];
	        this.subject = source["subject"];
	        this.server = source["server"];
	        this.tool = source["tool"];
	        this.target = source["target"];
	        this.policies = source["policies"];
	        this.arguments = source["arguments"];
	        this.status = source["status"];
	        this.result = source["result"];
	        this.error = source["error"];
	        this.prevHash = source["prevHash"];
	        this.hash = source["hash"];
	    }
	}
	export class ChatConversation {
	    id: number;
	    title: string;
	    provider: string;
	    model: string;
	    disabledServers: string[];
	    approvedTools: string[];
	    inputTokens: number;
	    outputTokens: number;
	    // Go type: time
	    createdAt: any;
	    // Go type: time
	    updatedAt: any;
	
	    static createFrom(source: any = {}) {
	        return new ChatConversation(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.title = source["title"];
	        this.provider = source["provider"];
	        this.model = source["model"];
	        this.disabledServers = source["disabledServers"];
	        this.approvedTools = source["approvedTools"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	        this.updatedAt = this.convertValues(source["updatedAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}
	export class ChatMessage {
	    id: number;
	    conversationId: number;
	    role: string;
	    content: string;
	    model?: string;
	    inputTokens: number;
	    outputTokens: number;
	    toolCalls: number;
	    error?: string;
	    // Go type: time
	    createdAt: any;
	
	    static createFrom(source: any = {}) {
	        return new ChatMessage(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.id = source["id"];
	        this.conversationId = source["conversationId"];
	        this.role = source["role"];
	        this.content = source["content"];
	        this.model = source["model"];
	        this.inputTokens = source["inputTokens"];
	        this.outputTokens = source["outputTokens"];
	        this.toolCalls = source["toolCalls"];
	        this.error = source["error"];
	        this.createdAt = this.convertValues(source["createdAt"], null);
	    }
	
		convertValues(a: any, classs: any, asMap: boolean = false): any {
		    if (!a) {
		        return a;
		    }
		    if (a.slice && a.map) {
		        return (a as any[]).map(elem => this.convertValues(elem, classs));
		    } else if ("object" === typeof a) {
		        if (asMap) {
		            for (const key of Object.keys(a)) {
		                a[key] = new classs(a[key]);
		            }
		            return a;
		        }
		        return new classs(a);
		    }
		    return a;
		}
	}

}

export namespace update {
	
	export class Result {
	    current: string;
	    latest: string;
	    newer: boolean;
	    devBuild: boolean;
	    url: string;
	    name: string;
	    notes: string;
	    publishedAt?: string;
	    checkedAt: string;
	
	    static createFrom(source: any = {}) {
	        return new Result(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.current = source["current"];
	        this.latest = source["latest"];
	        this.newer = source["newer"];
	        this.devBuild = source["devBuild"];
	        this.url = source["url"];
	        this.name = source["name"];
	        this.notes = source["notes"];
	        this.publishedAt = source["publishedAt"];
	        this.checkedAt = source["checkedAt"];
	    }
	}

}

