// `npm test`'s typecheck and eslint in one process over one TypeScript program: what `tsc -p tsconfig.json
// --noEmit` and `eslint .` report, for about two thirds of their CPU. Run apart, each builds and type-checks
// the same program (the root tsconfig.json, which eslint.config.js gives the type-aware rules); here it is
// built once. `npm run typecheck` and `npm run lint` stay the plain commands.
//   node test/support/typecheck-and-lint.mjs   (exit code 1 if either found a fault)
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { ROOT } from '@va/infra/paths';

/** The program `tsc -p tsconfig.json` builds: the same files and options. */
function createProgram() {
  const config = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
      throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
    },
  });
  if (!config) throw new Error('tsconfig.json: could not be read');
  return {
    program: ts.createProgram({
      rootNames: config.fileNames,
      options: config.options,
      projectReferences: config.projectReferences,
    }),
    configErrors: config.errors,
  };
}

function typecheck(program, configErrors) {
  const diagnostics = [...configErrors, ...ts.getPreEmitDiagnostics(program)];
  const host = {
    getCanonicalFileName: (fileName) => fileName,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  };
  // Colours and source context on a terminal, plain `file(line,col): error` lines otherwise, as tsc does.
  const format = process.stdout.isTTY ? ts.formatDiagnosticsWithColorAndContext : ts.formatDiagnostics;
  if (diagnostics.length > 0) process.stdout.write(format(diagnostics, host));
  const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length;
  console.log(`typecheck: ${errors === 0 ? 'ok' : `${errors} error(s)`}`);
  return errors === 0;
}

async function lint(program) {
  // The type-aware rules take the program built above instead of building their own from tsconfig.json
  // (typescript-eslint ignores parserOptions.project when parserOptions.programs is given).
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { programs: [program] } } },
  });
  const results = await eslint.lintFiles(['.']);
  const report = await (await eslint.loadFormatter('stylish')).format(results);
  if (report) process.stdout.write(report);
  const errors = results.reduce((sum, r) => sum + r.errorCount, 0);
  console.log(`eslint: ${errors === 0 ? 'ok' : `${errors} error(s)`}`);
  return errors === 0;
}

const { program, configErrors } = createProgram();
const typesOk = typecheck(program, configErrors);
const lintOk = await lint(program);
process.exitCode = typesOk && lintOk ? 0 : 1;
