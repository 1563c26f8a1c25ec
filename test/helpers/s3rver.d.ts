/** The part of s3rver (a test-only S3-compatible server) the harness tests use. */
declare module "s3rver" {
  export default class S3rver {
    constructor(options: {
      port: number;
      address: string;
      silent?: boolean;
      /** Accept a request signed with another secret than the account's (its access key id is still checked). */
      allowMismatchedSignatures?: boolean;
      directory: string;
      configureBuckets?: { name: string; configs: unknown[] }[];
    });
    run(): Promise<{ address: string; port: number }>;
    close(): Promise<void>;
  }
}
