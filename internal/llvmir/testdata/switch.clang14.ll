; ModuleID = 'examples/switch.c'
source_filename = "examples/switch.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1

; Function Attrs: nounwind uwtable
define dso_local i32 @main() #0 !dbg !9 {
entry:
  %retval = alloca i32, align 4
  %s = alloca i32, align 4
  %i = alloca i32, align 4
  store i32 0, i32* %retval, align 4
  %0 = bitcast i32* %s to i8*, !dbg !17
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0) #4, !dbg !17
  call void @llvm.dbg.declare(metadata i32* %s, metadata !14, metadata !DIExpression()), !dbg !18
  store i32 0, i32* %s, align 4, !dbg !18, !tbaa !19
  %1 = bitcast i32* %i to i8*, !dbg !23
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %1) #4, !dbg !23
  call void @llvm.dbg.declare(metadata i32* %i, metadata !15, metadata !DIExpression()), !dbg !24
  store i32 0, i32* %i, align 4, !dbg !24, !tbaa !19
  br label %for.cond, !dbg !23

for.cond:                                         ; preds = %for.inc, %entry
  %2 = load i32, i32* %i, align 4, !dbg !25, !tbaa !19
  %cmp = icmp slt i32 %2, 20, !dbg !27
  br i1 %cmp, label %for.body, label %for.cond.cleanup, !dbg !28

for.cond.cleanup:                                 ; preds = %for.cond
  %3 = bitcast i32* %i to i8*, !dbg !29
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %3) #4, !dbg !29
  br label %for.end

for.body:                                         ; preds = %for.cond
  %4 = load i32, i32* %i, align 4, !dbg !30, !tbaa !19
  %call = call i32 @classify(i32 noundef %4), !dbg !31
  %5 = load i32, i32* %s, align 4, !dbg !32, !tbaa !19
  %add = add nsw i32 %5, %call, !dbg !32
  store i32 %add, i32* %s, align 4, !dbg !32, !tbaa !19
  br label %for.inc, !dbg !33

for.inc:                                          ; preds = %for.body
  %6 = load i32, i32* %i, align 4, !dbg !34, !tbaa !19
  %inc = add nsw i32 %6, 1, !dbg !34
  store i32 %inc, i32* %i, align 4, !dbg !34, !tbaa !19
  br label %for.cond, !dbg !29, !llvm.loop !35

for.end:                                          ; preds = %for.cond.cleanup
  %7 = load i32, i32* %s, align 4, !dbg !38, !tbaa !19
  %call1 = call i32 (i8*, ...) @printf(i8* noundef getelementptr inbounds ([4 x i8], [4 x i8]* @.str, i64 0, i64 0), i32 noundef %7), !dbg !39
  %8 = bitcast i32* %s to i8*, !dbg !40
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %8) #4, !dbg !40
  ret i32 0, !dbg !41
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #1

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #2

; Function Attrs: nounwind uwtable
define internal i32 @classify(i32 noundef %x) #0 !dbg !42 {
entry:
  %x.addr = alloca i32, align 4
  %r = alloca i32, align 4
  store i32 %x, i32* %x.addr, align 4, !tbaa !19
  call void @llvm.dbg.declare(metadata i32* %x.addr, metadata !46, metadata !DIExpression()), !dbg !48
  %0 = bitcast i32* %r to i8*, !dbg !49
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0) #4, !dbg !49
  call void @llvm.dbg.declare(metadata i32* %r, metadata !47, metadata !DIExpression()), !dbg !50
  store i32 0, i32* %r, align 4, !dbg !50, !tbaa !19
  %1 = load i32, i32* %x.addr, align 4, !dbg !51, !tbaa !19
  %rem = srem i32 %1, 6, !dbg !52
  switch i32 %rem, label %sw.default [
    i32 0, label %sw.bb
    i32 1, label %sw.bb1
    i32 2, label %sw.bb3
    i32 3, label %sw.bb3
  ], !dbg !53

sw.bb:                                            ; preds = %entry
  %2 = load i32, i32* %r, align 4, !dbg !54, !tbaa !19
  %add = add nsw i32 %2, 100, !dbg !54
  store i32 %add, i32* %r, align 4, !dbg !54, !tbaa !19
  br label %sw.bb1, !dbg !56

sw.bb1:                                           ; preds = %entry, %sw.bb
  %3 = load i32, i32* %r, align 4, !dbg !57, !tbaa !19
  %add2 = add nsw i32 %3, 10, !dbg !57
  store i32 %add2, i32* %r, align 4, !dbg !57, !tbaa !19
  br label %sw.epilog, !dbg !58

sw.bb3:                                           ; preds = %entry, %entry
  %4 = load i32, i32* %r, align 4, !dbg !59, !tbaa !19
  %add4 = add nsw i32 %4, 1, !dbg !59
  store i32 %add4, i32* %r, align 4, !dbg !59, !tbaa !19
  br label %sw.epilog, !dbg !60

sw.default:                                       ; preds = %entry
  store i32 -1, i32* %r, align 4, !dbg !61, !tbaa !19
  br label %sw.epilog, !dbg !62

sw.epilog:                                        ; preds = %sw.default, %sw.bb3, %sw.bb1
  %5 = load i32, i32* %r, align 4, !dbg !63, !tbaa !19
  %6 = bitcast i32* %r to i8*, !dbg !64
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %6) #4, !dbg !64
  ret i32 %5, !dbg !65
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #1

declare i32 @printf(i8* noundef, ...) #3

attributes #0 = { nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { argmemonly nofree nosync nounwind willreturn }
attributes #2 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #3 = { "frame-pointer"="none" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6, !7}
!llvm.ident = !{!8}

!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, producer: "Debian clang version 14.0.6", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "examples/switch.c", directory: "/src", checksumkind: CSK_MD5, checksum: "5d8bf9eb4cacce0435d0cbb6671ea559")
!2 = !{i32 7, !"Dwarf Version", i32 5}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 4}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"PIE Level", i32 2}
!7 = !{i32 7, !"uwtable", i32 1}
!8 = !{!"Debian clang version 14.0.6"}
!9 = distinct !DISubprogram(name: "main", scope: !1, file: !1, line: 23, type: !10, scopeLine: 23, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !13)
!10 = !DISubroutineType(types: !11)
!11 = !{!12}
!12 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!13 = !{!14, !15}
!14 = !DILocalVariable(name: "s", scope: !9, file: !1, line: 24, type: !12)
!15 = !DILocalVariable(name: "i", scope: !16, file: !1, line: 25, type: !12)
!16 = distinct !DILexicalBlock(scope: !9, file: !1, line: 25, column: 3)
!17 = !DILocation(line: 24, column: 3, scope: !9)
!18 = !DILocation(line: 24, column: 7, scope: !9)
!19 = !{!20, !20, i64 0}
!20 = !{!"int", !21, i64 0}
!21 = !{!"omnipotent char", !22, i64 0}
!22 = !{!"Simple C/C++ TBAA"}
!23 = !DILocation(line: 25, column: 8, scope: !16)
!24 = !DILocation(line: 25, column: 12, scope: !16)
!25 = !DILocation(line: 25, column: 19, scope: !26)
!26 = distinct !DILexicalBlock(scope: !16, file: !1, line: 25, column: 3)
!27 = !DILocation(line: 25, column: 21, scope: !26)
!28 = !DILocation(line: 25, column: 3, scope: !16)
!29 = !DILocation(line: 25, column: 3, scope: !26)
!30 = !DILocation(line: 26, column: 19, scope: !26)
!31 = !DILocation(line: 26, column: 10, scope: !26)
!32 = !DILocation(line: 26, column: 7, scope: !26)
!33 = !DILocation(line: 26, column: 5, scope: !26)
!34 = !DILocation(line: 25, column: 28, scope: !26)
!35 = distinct !{!35, !28, !36, !37}
!36 = !DILocation(line: 26, column: 20, scope: !16)
!37 = !{!"llvm.loop.mustprogress"}
!38 = !DILocation(line: 27, column: 18, scope: !9)
!39 = !DILocation(line: 27, column: 3, scope: !9)
!40 = !DILocation(line: 29, column: 1, scope: !9)
!41 = !DILocation(line: 28, column: 3, scope: !9)
!42 = distinct !DISubprogram(name: "classify", scope: !1, file: !1, line: 4, type: !43, scopeLine: 4, flags: DIFlagPrototyped | DIFlagAllCallsDescribed, spFlags: DISPFlagLocalToUnit | DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !45)
!43 = !DISubroutineType(types: !44)
!44 = !{!12, !12}
!45 = !{!46, !47}
!46 = !DILocalVariable(name: "x", arg: 1, scope: !42, file: !1, line: 4, type: !12)
!47 = !DILocalVariable(name: "r", scope: !42, file: !1, line: 5, type: !12)
!48 = !DILocation(line: 4, column: 25, scope: !42)
!49 = !DILocation(line: 5, column: 3, scope: !42)
!50 = !DILocation(line: 5, column: 7, scope: !42)
!51 = !DILocation(line: 6, column: 11, scope: !42)
!52 = !DILocation(line: 6, column: 13, scope: !42)
!53 = !DILocation(line: 6, column: 3, scope: !42)
!54 = !DILocation(line: 8, column: 7, scope: !55)
!55 = distinct !DILexicalBlock(scope: !42, file: !1, line: 6, column: 18)
!56 = !DILocation(line: 8, column: 5, scope: !55)
!57 = !DILocation(line: 11, column: 7, scope: !55)
!58 = !DILocation(line: 12, column: 5, scope: !55)
!59 = !DILocation(line: 15, column: 7, scope: !55)
!60 = !DILocation(line: 16, column: 5, scope: !55)
!61 = !DILocation(line: 18, column: 7, scope: !55)
!62 = !DILocation(line: 19, column: 3, scope: !55)
!63 = !DILocation(line: 20, column: 10, scope: !42)
!64 = !DILocation(line: 21, column: 1, scope: !42)
!65 = !DILocation(line: 20, column: 3, scope: !42)
