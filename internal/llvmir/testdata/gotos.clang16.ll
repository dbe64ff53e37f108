; ModuleID = 'examples/gotos.c'
source_filename = "examples/gotos.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [7 x i8] c"%d %d\0A\00", align 1, !dbg !0

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !16 {
entry:
  %retval = alloca i32, align 4
  %i = alloca i32, align 4
  %s = alloca i32, align 4
  store i32 0, ptr %retval, align 4
  call void @llvm.lifetime.start.p0(i64 4, ptr %i) #4, !dbg !25
  call void @llvm.dbg.declare(metadata ptr %i, metadata !21, metadata !DIExpression()), !dbg !26
  store i32 0, ptr %i, align 4, !dbg !26, !tbaa !27
  call void @llvm.lifetime.start.p0(i64 4, ptr %s) #4, !dbg !25
  call void @llvm.dbg.declare(metadata ptr %s, metadata !22, metadata !DIExpression()), !dbg !31
  store i32 0, ptr %s, align 4, !dbg !31, !tbaa !27
  br label %again, !dbg !25

again:                                            ; preds = %if.then2, %entry
  call void @llvm.dbg.label(metadata !23), !dbg !32
  %0 = load i32, ptr %i, align 4, !dbg !33, !tbaa !27
  %1 = load i32, ptr %s, align 4, !dbg !34, !tbaa !27
  %add = add nsw i32 %1, %0, !dbg !34
  store i32 %add, ptr %s, align 4, !dbg !34, !tbaa !27
  %2 = load i32, ptr %i, align 4, !dbg !35, !tbaa !27
  %inc = add nsw i32 %2, 1, !dbg !35
  store i32 %inc, ptr %i, align 4, !dbg !35, !tbaa !27
  %3 = load i32, ptr %i, align 4, !dbg !36, !tbaa !27
  %cmp = icmp eq i32 %3, 7, !dbg !38
  br i1 %cmp, label %if.then, label %if.end, !dbg !39

if.then:                                          ; preds = %again
  br label %out, !dbg !40

if.end:                                           ; preds = %again
  %4 = load i32, ptr %i, align 4, !dbg !41, !tbaa !27
  %cmp1 = icmp slt i32 %4, 100, !dbg !43
  br i1 %cmp1, label %if.then2, label %if.end3, !dbg !44

if.then2:                                         ; preds = %if.end
  br label %again, !dbg !45

if.end3:                                          ; preds = %if.end
  store i32 -1, ptr %s, align 4, !dbg !46, !tbaa !27
  br label %out, !dbg !47

out:                                              ; preds = %if.end3, %if.then
  call void @llvm.dbg.label(metadata !24), !dbg !48
  %5 = load i32, ptr %i, align 4, !dbg !49, !tbaa !27
  %6 = load i32, ptr %s, align 4, !dbg !50, !tbaa !27
  %call = call i32 (ptr, ...) @printf(ptr noundef @.str, i32 noundef %5, i32 noundef %6), !dbg !51
  call void @llvm.lifetime.end.p0(i64 4, ptr %s) #4, !dbg !52
  call void @llvm.lifetime.end.p0(i64 4, ptr %i) #4, !dbg !52
  ret i32 0, !dbg !53
}

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(i64 immarg, ptr nocapture) #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare void @llvm.dbg.label(metadata) #2

declare !dbg !54 i32 @printf(ptr noundef, ...) #3

; Function Attrs: nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(i64 immarg, ptr nocapture) #1

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!7}
!llvm.module.flags = !{!9, !10, !11, !12, !13, !14}
!llvm.ident = !{!15}

!0 = !DIGlobalVariableExpression(var: !1, expr: !DIExpression())
!1 = distinct !DIGlobalVariable(scope: null, file: !2, line: 15, type: !3, isLocal: true, isDefinition: true)
!2 = !DIFile(filename: "examples/gotos.c", directory: "/src", checksumkind: CSK_MD5, checksum: "da3750c0d4f89c59c5b475792c3c4118")
!3 = !DICompositeType(tag: DW_TAG_array_type, baseType: !4, size: 56, elements: !5)
!4 = !DIBasicType(name: "char", size: 8, encoding: DW_ATE_signed_char)
!5 = !{!6}
!6 = !DISubrange(count: 7)
!7 = distinct !DICompileUnit(language: DW_LANG_C11, file: !2, producer: "Debian clang version 16.0.6 (15~deb12u1)", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, globals: !8, splitDebugInlining: false, nameTableKind: None)
!8 = !{!0}
!9 = !{i32 7, !"Dwarf Version", i32 5}
!10 = !{i32 2, !"Debug Info Version", i32 3}
!11 = !{i32 1, !"wchar_size", i32 4}
!12 = !{i32 8, !"PIC Level", i32 2}
!13 = !{i32 7, !"PIE Level", i32 2}
!14 = !{i32 7, !"uwtable", i32 2}
!15 = !{!"Debian clang version 16.0.6 (15~deb12u1)"}
!16 = distinct !DISubprogram(name: "main", scope: !2, file: !2, line: 4, type: !17, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !7, retainedNodes: !20)
!17 = !DISubroutineType(types: !18)
!18 = !{!19}
!19 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!20 = !{!21, !22, !23, !24}
!21 = !DILocalVariable(name: "i", scope: !16, file: !2, line: 5, type: !19)
!22 = !DILocalVariable(name: "s", scope: !16, file: !2, line: 5, type: !19)
!23 = !DILabel(scope: !16, name: "again", file: !2, line: 6)
!24 = !DILabel(scope: !16, name: "out", file: !2, line: 14)
!25 = !DILocation(line: 5, column: 3, scope: !16)
!26 = !DILocation(line: 5, column: 7, scope: !16)
!27 = !{!28, !28, i64 0}
!28 = !{!"int", !29, i64 0}
!29 = !{!"omnipotent char", !30, i64 0}
!30 = !{!"Simple C/C++ TBAA"}
!31 = !DILocation(line: 5, column: 14, scope: !16)
!32 = !DILocation(line: 6, column: 1, scope: !16)
!33 = !DILocation(line: 7, column: 8, scope: !16)
!34 = !DILocation(line: 7, column: 5, scope: !16)
!35 = !DILocation(line: 8, column: 4, scope: !16)
!36 = !DILocation(line: 9, column: 7, scope: !37)
!37 = distinct !DILexicalBlock(scope: !16, file: !2, line: 9, column: 7)
!38 = !DILocation(line: 9, column: 9, scope: !37)
!39 = !DILocation(line: 9, column: 7, scope: !16)
!40 = !DILocation(line: 10, column: 5, scope: !37)
!41 = !DILocation(line: 11, column: 7, scope: !42)
!42 = distinct !DILexicalBlock(scope: !16, file: !2, line: 11, column: 7)
!43 = !DILocation(line: 11, column: 9, scope: !42)
!44 = !DILocation(line: 11, column: 7, scope: !16)
!45 = !DILocation(line: 12, column: 5, scope: !42)
!46 = !DILocation(line: 13, column: 5, scope: !16)
!47 = !DILocation(line: 13, column: 3, scope: !16)
!48 = !DILocation(line: 14, column: 1, scope: !16)
!49 = !DILocation(line: 15, column: 21, scope: !16)
!50 = !DILocation(line: 15, column: 24, scope: !16)
!51 = !DILocation(line: 15, column: 3, scope: !16)
!52 = !DILocation(line: 17, column: 1, scope: !16)
!53 = !DILocation(line: 16, column: 3, scope: !16)
!54 = !DISubprogram(name: "printf", scope: !55, file: !55, line: 356, type: !56, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized, retainedNodes: !61)
!55 = !DIFile(filename: "/usr/include/stdio.h", directory: "", checksumkind: CSK_MD5, checksum: "b5a90985555f47bfb88eff5a8f0f5b72")
!56 = !DISubroutineType(types: !57)
!57 = !{!19, !58, null}
!58 = !DIDerivedType(tag: DW_TAG_restrict_type, baseType: !59)
!59 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !60, size: 64)
!60 = !DIDerivedType(tag: DW_TAG_const_type, baseType: !4)
!61 = !{}
