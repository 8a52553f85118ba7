export namespace appapi {
	
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
	
	    static createFrom(source: any = {}) {
	        return new ImportReport(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.added = source["added"];
	        this.skipped = this.convertValues(source["skipped"], Skipped);
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

export namespace spec {
	
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
	export class Server {
	    name: string;
	    transport: string;
	    command?: string;
	    args?: string[];
	    env?: Record<string, string>;
	    cwd?: string;
	    url?: string;
	    headers?: Record<string, string>;
	    enabled: boolean;
	    prefixMode: string;
	    timeoutSeconds?: number;
	    disabledTools?: string[];
	    gate: Gate;
	
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
	        this.enabled = source["enabled"];
	        this.prefixMode = source["prefixMode"];
	        this.timeoutSeconds = source["timeoutSeconds"];
	        this.disabledTools = source["disabledTools"];
	        this.gate = this.convertValues(source["gate"], Gate);
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

