export namespace appapi {
	
	export class ServerView {
	    name: string;
	    transport: string;
	    enabled: boolean;
	    state: string;
	    error?: string;
	    restarts: number;
	    tools: number;
	    target: string;
	
	    static createFrom(source: any = {}) {
	        return new ServerView(source);
	    }
	
	    constructor(source: any = {}) {
	        if ('string' === typeof source) source = JSON.parse(source);
	        this.name = source["name"];
	        this.transport = source["transport"];
	        this.enabled = source["enabled"];
	        this.state = source["state"];
	        this.error = source["error"];
	        this.restarts = source["restarts"];
	        this.tools = source["tools"];
	        this.target = source["target"];
	    }
	}

}

